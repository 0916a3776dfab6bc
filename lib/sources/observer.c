#include "observer.h"

enum vt_layer vt_observe_before(const struct vt_observer *observer, const void *params,
				enum vt_source source)
{
	int saved_errno = errno;
	enum vt_layer layer = vt_call_enter(source);
	if (layer == VT_LAYER_OUTER && observer->before)
		observer->before(observer, params);
	errno = saved_errno;
	return layer;
}

void vt_observe_after(enum vt_layer layer, const struct vt_observer *observer, const void *params,
		      CUresult rc)
{
	int saved_errno = errno;
	if (layer == VT_LAYER_OUTER && observer->after)
		observer->after(observer, params, rc);
	vt_call_leave(layer);
	errno = saved_errno;
}
