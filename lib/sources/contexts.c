/* CUDA initialized and contexts made: a process that uses CUDA without
 * allocating (a context holds hundreds of MiB on its own) is traced from
 * cuInit on, and every device it made a context on is in its report. */
#include "call.h"
#include "context_end.h"
#include "observer.h"

/* Being hooked is all: the call activates the tracer. */
VT_OBSERVER(cuInit, NULL, NULL);

static void after_create(const struct vt_observer *self, const void *args, CUresult rc)
{
	const cuCtxCreate_v4_params *p = args;
	if (rc != CUDA_SUCCESS)
		return;
	vt_context_made_on(p->dev);
	vt_emit_context(p->dev, self->name);
}
VT_OBSERVER(cuCtxCreate_v4, NULL, after_create);

static void after_retain(const struct vt_observer *self, const void *args, CUresult rc)
{
	const cuDevicePrimaryCtxRetain_params *p = args;
	if (rc == CUDA_SUCCESS)
		vt_emit_context(p->dev, self->name);
}
VT_OBSERVER(cuDevicePrimaryCtxRetain, NULL, after_retain);
