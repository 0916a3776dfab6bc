/* Wrappers of cuGetProcAddress, through which libcudart 12/13 and every
 * modern library reach the driver: what it hands out for a wrapped entry
 * point is replaced by vramtrace's wrapper, and a request for
 * cuGetProcAddress itself gets these wrappers back. */
#include <errno.h>

#include "activation.h"
#include "../sources/call.h"
#include "hooks.h"
#include "prototypes.h"

static void wrap_result(CUresult rc, const char *symbol, void **pfn, int version, cuuint64_t flags)
{
	if (rc == CUDA_SUCCESS && symbol && pfn && *pfn)
		*pfn = vt_hooks_wrap_entry_point(symbol, version, flags, *pfn);
}

VT_EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version,
				       cuuint64_t flags, CUdriverProcAddressQueryResult *status)
{
	__typeof__(&cuGetProcAddress_v2) real = (__typeof__(&cuGetProcAddress_v2))vt_hook_real(
		&vt_hooks[VT_HOOK_cuGetProcAddress_v2], VT_LEGACY_STREAM);
	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	vt_activate();
	enum vt_layer layer = vt_call_enter(VT_SOURCE_HOOKS, (uintptr_t)__builtin_frame_address(0));
	CUresult rc = real(symbol, pfn, version, flags, status);
	int saved_errno = errno;
	wrap_result(rc, symbol, pfn, version, flags);
	vt_call_leave(layer);
	errno = saved_errno;
	return rc;
}

VT_EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn, int version, cuuint64_t flags)
{
	__typeof__(&cuGetProcAddress) real = (__typeof__(&cuGetProcAddress))vt_hook_real(
		&vt_hooks[VT_HOOK_cuGetProcAddress], VT_LEGACY_STREAM);
	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	vt_activate();
	enum vt_layer layer = vt_call_enter(VT_SOURCE_HOOKS, (uintptr_t)__builtin_frame_address(0));
	CUresult rc = real(symbol, pfn, version, flags);
	int saved_errno = errno;
	wrap_result(rc, symbol, pfn, version, flags);
	vt_call_leave(layer);
	errno = saved_errno;
	return rc;
}
