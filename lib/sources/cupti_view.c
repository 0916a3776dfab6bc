#include "cupti_view.h"

#include <stdatomic.h>
#include <stdbool.h>

#include "../core/clock.h"
#include "driver_query.h"

static struct {
	uint64_t start_ns;
	struct vt_cupti_status status;
	struct vt_resource_event events[VT_CUPTI_MAX_EVENTS];
	_Atomic bool ready[VT_CUPTI_MAX_EVENTS];
	_Atomic uint64_t claimed;
} view;

void vt_cupti_view_start(uint64_t start_ns)
{
	view.start_ns = start_ns;
}

void vt_cupti_view_set_status(const struct vt_cupti_status *status)
{
	view.status = *status;
}

void vt_cupti_view_log(enum vt_resource_kind kind, void *context, uint64_t bytes)
{
	uint64_t slot = atomic_fetch_add(&view.claimed, 1);
	if (slot >= VT_CUPTI_MAX_EVENTS)
		return;
	view.events[slot] = (struct vt_resource_event){
		.at_ns = vt_clock_ns() - view.start_ns,
		.kind = kind,
		.device = vt_driver_context_device(context),
		.bytes = bytes,
	};
	atomic_store_explicit(&view.ready[slot], true, memory_order_release);
}

void vt_cupti_read(struct vt_cupti_view *out)
{
	out->status = view.status;
	uint64_t claimed = atomic_load(&view.claimed);
	uint64_t kept = claimed < VT_CUPTI_MAX_EVENTS ? claimed : VT_CUPTI_MAX_EVENTS;
	out->dropped = claimed - kept;
	out->count = 0;
	for (uint64_t i = 0; i < kept; i++)
		if (atomic_load_explicit(&view.ready[i], memory_order_acquire))
			out->events[out->count++] = view.events[i];
}

void vt_cupti_reset(void)
{
	for (size_t i = 0; i < VT_CUPTI_MAX_EVENTS; i++)
		atomic_store(&view.ready[i], false);
	atomic_store(&view.claimed, 0);
}
