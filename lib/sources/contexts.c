/* CUDA initialized and contexts made: a process that uses CUDA without
 * allocating (a context holds hundreds of MiB on its own) is traced from
 * cuInit on, and every device it made a context on is in its report. */
#include "call.h"
#include "context_end.h"
#include "driver_query.h"
#include "observer.h"

/* Being hooked is all: the call activates the tracer. */
VT_OBSERVER(cuInit, NULL, NULL);

static void context_created(const struct vt_observer *self, CUdevice device, CUresult rc)
{
	if (rc != CUDA_SUCCESS)
		return;
	vt_context_made_on(device);
	vt_emit_context(device, self->name);
}

static void after_create(const struct vt_observer *self, const void *args, CUresult rc)
{
	context_created(self, ((const cuCtxCreate_v4_params *)args)->dev, rc);
}
VT_OBSERVER(cuCtxCreate_v4, NULL, after_create);

/* The older ABIs, which programs built against older headers call. */
static void after_create_v3(const struct vt_observer *self, const void *args, CUresult rc)
{
	context_created(self, ((const cuCtxCreate_v3_params *)args)->dev, rc);
}
VT_OBSERVER(cuCtxCreate_v3, NULL, after_create_v3);

/* CUDA 2.0's cuCtxCreate and 3.2's cuCtxCreate_v2 take the same arguments. */
static void after_create_v2(const struct vt_observer *self, const void *args, CUresult rc)
{
	context_created(self, ((const cuCtxCreate_v2_params *)args)->dev, rc);
}
VT_OBSERVER(cuCtxCreate_v2, NULL, after_create_v2);
VT_OBSERVER(cuCtxCreate, NULL, after_create_v2);

/* A retain makes a context only when the primary one was inactive: each
 * later retain (the runtime's, a library's) shares the same one. */
static __thread bool primary_was_active __attribute__((tls_model("initial-exec")));

static void before_retain(const struct vt_observer *self, const void *args)
{
	(void)self;
	primary_was_active =
		vt_driver_primary_active(((const cuDevicePrimaryCtxRetain_params *)args)->dev);
}

static void after_retain(const struct vt_observer *self, const void *args, CUresult rc)
{
	const cuDevicePrimaryCtxRetain_params *p = args;
	if (rc == CUDA_SUCCESS && !primary_was_active)
		vt_emit_context(p->dev, self->name);
}
VT_OBSERVER(cuDevicePrimaryCtxRetain, before_retain, after_retain);
