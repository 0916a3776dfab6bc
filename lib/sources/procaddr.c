/* Wrappers of cuGetProcAddress, through which libcudart 12/13 and every
 * modern library reach the driver: what it hands out for a wrapped entry
 * point is replaced by vramtrace's wrapper, and a request for
 * cuGetProcAddress itself gets these wrappers back. */
#include <errno.h>

#include "call.h"
#include "driver_hooks.h"
#include "driver_wrappers.h"

typedef CUresult (*get_proc_address_v2_fn)(const char *, void **, int, cuuint64_t,
					   CUdriverProcAddressQueryResult *);
typedef CUresult (*get_proc_address_fn)(const char *, void **, int, cuuint64_t);

static void wrap_result(CUresult rc, const char *symbol, void **pfn, int version, cuuint64_t flags)
{
	if (rc == CUDA_SUCCESS && symbol && pfn && *pfn)
		*pfn = vt_hooks_wrap_entry_point(symbol, version, flags, *pfn);
}

VT_EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version,
				       cuuint64_t flags, CUdriverProcAddressQueryResult *status)
{
	static struct vt_hook *hook;
	if (!hook)
		hook = vt_hook_named("cuGetProcAddress_v2");
	get_proc_address_v2_fn real = (get_proc_address_v2_fn)vt_hook_real(hook, VT_LEGACY_STREAM);
	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	enum vt_layer layer = vt_call_enter(VT_SOURCE_HOOKS);
	CUresult rc = real(symbol, pfn, version, flags, status);
	int saved_errno = errno;
	wrap_result(rc, symbol, pfn, version, flags);
	vt_call_leave(layer);
	errno = saved_errno;
	return rc;
}

VT_EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn, int version, cuuint64_t flags)
{
	static struct vt_hook *hook;
	if (!hook)
		hook = vt_hook_named("cuGetProcAddress");
	get_proc_address_fn real = (get_proc_address_fn)vt_hook_real(hook, VT_LEGACY_STREAM);
	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	enum vt_layer layer = vt_call_enter(VT_SOURCE_HOOKS);
	CUresult rc = real(symbol, pfn, version, flags);
	int saved_errno = errno;
	wrap_result(rc, symbol, pfn, version, flags);
	vt_call_leave(layer);
	errno = saved_errno;
	return rc;
}
