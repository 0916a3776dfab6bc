/* CUDA initialized and contexts made: a process that uses CUDA without
 * allocating (a context holds hundreds of MiB on its own) is traced from
 * cuInit on, and every device it made a context on is in its report. */
#include "driver_hooks.h"
#include "driver_wrappers.h"
#include "observer.h"

/* Being hooked is all: the call activates the tracer. */
VT_OBSERVER(cuInit, NULL, NULL);

VT_EXPORT CUresult cuInit(unsigned int flags)
{
	VT_REAL("cuInit", VT_LEGACY_STREAM, CUresult(*)(unsigned int));
	cuInit_params params = {flags};
	VT_RETURN_OBSERVED(cuInit, &params, real(flags));
}

static void after_create(const struct vt_observer *self, const void *args, CUresult rc)
{
	const cuCtxCreate_v4_params *p = args;
	if (rc == CUDA_SUCCESS)
		vt_emit_context(p->dev, self->name);
}
VT_OBSERVER(cuCtxCreate_v4, NULL, after_create);

VT_EXPORT CUresult cuCtxCreate_v4(CUcontext *context, CUctxCreateParams *create_params,
				  unsigned int flags, CUdevice device)
{
	VT_REAL("cuCtxCreate_v4", VT_LEGACY_STREAM,
		CUresult(*)(CUcontext *, CUctxCreateParams *, unsigned int, CUdevice));
	cuCtxCreate_v4_params params = {context, create_params, flags, device};
	VT_RETURN_OBSERVED(cuCtxCreate_v4, &params, real(context, create_params, flags, device));
}

static void after_retain(const struct vt_observer *self, const void *args, CUresult rc)
{
	const cuDevicePrimaryCtxRetain_params *p = args;
	if (rc == CUDA_SUCCESS)
		vt_emit_context(p->dev, self->name);
}
VT_OBSERVER(cuDevicePrimaryCtxRetain, NULL, after_retain);

VT_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *context, CUdevice device)
{
	VT_REAL("cuDevicePrimaryCtxRetain", VT_LEGACY_STREAM, CUresult(*)(CUcontext *, CUdevice));
	cuDevicePrimaryCtxRetain_params params = {context, device};
	VT_RETURN_OBSERVED(cuDevicePrimaryCtxRetain, &params, real(context, device));
}
