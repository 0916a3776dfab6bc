/* The exported names of the entry points in entry_points.h, for the
 * export map: the build runs this file through the preprocessor alone
 * (export_map.py reads what comes out). */
#include "entry_points.h"

#define PLAIN(base, version, abi)                         abi;
#define LEGACY(base, version, abi, parameters, arguments) abi;
#define BOTH(base, version, abi, abi_per_thread, parameters, arguments) \
	abi;                                                            \
	abi_per_thread;
#define RUNTIME(name, parameters, arguments) name;

VT_PLAIN_ENTRY_POINTS(PLAIN)
VT_DRIVER_ENTRY_POINTS(LEGACY, BOTH)
VT_RUNTIME_ENTRY_POINTS(RUNTIME)
