/* The exported driver wrappers, one per entry point in entry_points.h:
 * each finds the real function behind its hook, packs its arguments into
 * CUPTI's parameter struct, activates the tracer (the first CUDA call
 * does) and forwards the call between its observer's halves. Return
 * codes, output values and errno pass through untouched. */
#include "activation.h"
#include "../sources/call.h"
#include "hooks.h"
#include "observe.h"
#include "prototypes.h"

/* The real function for a wrapper, or CUDA_ERROR_NOT_INITIALIZED when the
 * program's driver has none. */
#define WRAPPER(abi, legacy_abi, flavour, parameters, arguments)                                  \
	VT_EXPORT CUresult abi parameters                                                         \
	{                                                                                         \
		__typeof__(&abi) real =                                                           \
			(__typeof__(&abi))vt_hook_real(&vt_hooks[VT_HOOK_##legacy_abi], flavour); \
		if (!real)                                                                        \
			return CUDA_ERROR_NOT_INITIALIZED;                                        \
		abi##_params params = {VT_UNPAREN arguments};                                     \
		vt_activate();                                                                    \
		VT_RETURN_OBSERVED(abi, &params, real arguments);                                 \
	}

#define LEGACY(base, version, abi, parameters, arguments) \
	WRAPPER(abi, abi, VT_LEGACY_STREAM, parameters, arguments)
#define BOTH(base, version, abi, abi_per_thread, parameters, arguments) \
	LEGACY(base, version, abi, parameters, arguments)               \
	WRAPPER(abi_per_thread, abi, VT_PER_THREAD_STREAM, parameters, arguments)

VT_DRIVER_ENTRY_POINTS(LEGACY, BOTH)
