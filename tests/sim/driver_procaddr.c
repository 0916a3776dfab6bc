/* Stand-in driver: cuGetProcAddress, the way the real libcudart reaches
 * every driver function. A base name may have several ABIs (abi.py lists
 * them from the toolkit's headers); a request gets the newest one its
 * version allows, and the per-thread-stream flavour when asked for one
 * that exists. As cuda.h documents it, a name with no entry point for the
 * version asked is no failure: CUDA_SUCCESS with a NULL pointer, the
 * status saying why; a version newer than the driver's own is
 * CUDA_ERROR_INVALID_VALUE. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi.h"
#include "sim.h"

#undef cuGetProcAddress
CUresult cuGetProcAddress(const char *, void **, int, cuuint64_t);

int sim_driver_unsupported(const char *name, int *said, int code)
{
	if (__atomic_exchange_n(said, 1, __ATOMIC_RELAXED))
		return code;
	sim_unsupported_note(name);
	if (getenv("VRAMSIM_VERBOSE"))
		fprintf(stderr,
			"vramsim: %s is not simulated; it returns CUDA_ERROR_NOT_SUPPORTED\n",
			name);
	return code;
}

__attribute__((destructor)) static void list_unsupported(void)
{
	sim_unsupported_list("libcuda");
}

static void set_status(CUdriverProcAddressQueryResult *status, CUdriverProcAddressQueryResult value)
{
	if (status)
		*status = value;
}

static int by_name(const void *key, const void *element)
{
	return strcmp(key, ((const struct sim_entry_point *)element)->name);
}

/* The first of a name's entry points, or NULL. */
static const struct sim_entry_point *first_entry(const char *symbol)
{
	const struct sim_entry_point *found =
		bsearch(symbol, sim_entry_points, sim_entry_point_count, sizeof(*found), by_name);
	while (found && found > sim_entry_points && strcmp(found[-1].name, symbol) == 0)
		found--;
	return found;
}

static CUresult lookup(const char *symbol, void **pfn, int version, cuuint64_t flags,
		       CUdriverProcAddressQueryResult *status)
{
	if (!symbol || !pfn)
		return CUDA_ERROR_INVALID_VALUE;
	*pfn = NULL;
	if (version > CUDA_VERSION) /* cuDriverGetVersion's */
		return CUDA_ERROR_INVALID_VALUE;
	const struct sim_entry_point *entry = first_entry(symbol);
	const struct sim_entry_point *end = sim_entry_points + sim_entry_point_count;
	const struct sim_entry_point *legacy = NULL, *per_thread = NULL;
	for (; entry && entry < end && strcmp(entry->name, symbol) == 0; entry++) {
		if (entry->version > version)
			continue;
		if (entry->per_thread)
			per_thread = entry;
		else
			legacy = entry;
	}
	if (!legacy) {
		set_status(status, first_entry(symbol) ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT
						       : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
		return CUDA_SUCCESS;
	}
	bool want_per_thread = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
	*pfn = (void *)(want_per_thread && per_thread ? per_thread : legacy)->function;
	set_status(status, CU_GET_PROC_ADDRESS_SUCCESS);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version,
					cuuint64_t flags, CUdriverProcAddressQueryResult *status)
{
	return lookup(symbol, pfn, version, flags, status);
}

SIM_EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn, int version, cuuint64_t flags)
{
	return lookup(symbol, pfn, version, flags, NULL);
}
