/* Stand-in driver: texture and surface objects. They hold no memory of
 * their own: an object is a view of an array or of linear memory, checked
 * as a real driver checks it, and its handle a small number. Handles are
 * never reused, so that a stale one reads as invalid. */
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define TEXTURE_ALIGNMENT 512

struct sim_object {
	CUDA_RESOURCE_DESC resource;
	CUDA_TEXTURE_DESC texture;
	bool is_texture;
	bool live;
};

static struct sim_object *objects;
static size_t object_count, object_capacity;

static bool valid_channels(unsigned channels)
{
	return channels == 1 || channels == 2 || channels == 4;
}

static bool valid_resource(const CUDA_RESOURCE_DESC *resource)
{
	switch (resource->resType) {
	case CU_RESOURCE_TYPE_ARRAY: return resource->res.array.hArray != NULL;
	case CU_RESOURCE_TYPE_MIPMAPPED_ARRAY: return resource->res.mipmap.hMipmappedArray != NULL;
	case CU_RESOURCE_TYPE_LINEAR:
		return resource->res.linear.devPtr &&
		       resource->res.linear.devPtr % TEXTURE_ALIGNMENT == 0 &&
		       resource->res.linear.sizeInBytes &&
		       valid_channels(resource->res.linear.numChannels);
	case CU_RESOURCE_TYPE_PITCH2D:
		return resource->res.pitch2D.devPtr &&
		       resource->res.pitch2D.devPtr % TEXTURE_ALIGNMENT == 0 &&
		       resource->res.pitch2D.width && resource->res.pitch2D.height &&
		       resource->res.pitch2D.pitchInBytes >= resource->res.pitch2D.width &&
		       valid_channels(resource->res.pitch2D.numChannels);
	default: return false;
	}
}

/* A surface is written by kernels: only an array made for it can be one. */
static bool valid_surface(const CUDA_RESOURCE_DESC *resource)
{
	CUDA_ARRAY3D_DESCRIPTOR desc;
	return resource->resType == CU_RESOURCE_TYPE_ARRAY &&
	       cuArray3DGetDescriptor(&desc, resource->res.array.hArray) == CUDA_SUCCESS &&
	       desc.Flags & CUDA_ARRAY3D_SURFACE_LDST;
}

static CUresult add_object(unsigned long long *handle, const struct sim_object *object)
{
	pthread_mutex_lock(&sim_lock);
	if (object_count == object_capacity) {
		size_t capacity = object_capacity ? object_capacity * 2 : 64;
		struct sim_object *grown = realloc(objects, capacity * sizeof(*grown));
		if (!grown) {
			pthread_mutex_unlock(&sim_lock);
			return CUDA_ERROR_OUT_OF_MEMORY;
		}
		objects = grown;
		object_capacity = capacity;
	}
	objects[object_count++] = *object;
	*handle = object_count;
	pthread_mutex_unlock(&sim_lock);
	return CUDA_SUCCESS;
}

static CUresult create(unsigned long long *handle, const CUDA_RESOURCE_DESC *resource,
		       const CUDA_TEXTURE_DESC *texture, bool is_texture)
{
	int device;
	CUresult rc = sim_current_device(&device);
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!handle || !resource || (is_texture && !texture) || !valid_resource(resource) ||
	    (!is_texture && !valid_surface(resource)))
		return CUDA_ERROR_INVALID_VALUE;
	struct sim_object object = {.resource = *resource, .is_texture = is_texture, .live = true};
	if (texture)
		object.texture = *texture;
	return add_object(handle, &object);
}

/* The live object behind a handle, or NULL; called with sim_lock held. */
static struct sim_object *live_object(unsigned long long handle, bool is_texture)
{
	if (handle == 0 || handle > object_count)
		return NULL;
	struct sim_object *object = &objects[handle - 1];
	return object->live && object->is_texture == is_texture ? object : NULL;
}

static CUresult destroy(unsigned long long handle, bool is_texture)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	pthread_mutex_lock(&sim_lock);
	struct sim_object *object = live_object(handle, is_texture);
	if (object)
		object->live = false;
	pthread_mutex_unlock(&sim_lock);
	return object ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

/* A copy of the live object behind handle, for the queries. */
static CUresult copy_of(unsigned long long handle, bool is_texture, const void *out,
			struct sim_object *copy)
{
	CUresult rc = sim_check_init();
	if (rc != CUDA_SUCCESS)
		return rc;
	if (!out)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim_lock);
	struct sim_object *object = live_object(handle, is_texture);
	if (object)
		*copy = *object;
	pthread_mutex_unlock(&sim_lock);
	return object ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

static CUresult resource_of(CUDA_RESOURCE_DESC *out, unsigned long long handle, bool is_texture)
{
	struct sim_object copy;
	CUresult rc = copy_of(handle, is_texture, out, &copy);
	if (rc == CUDA_SUCCESS)
		*out = copy.resource;
	return rc;
}

SIM_EXPORT CUresult cuTexObjectCreate(CUtexObject *handle, const CUDA_RESOURCE_DESC *resource,
				      const CUDA_TEXTURE_DESC *texture,
				      const CUDA_RESOURCE_VIEW_DESC *view)
{
	(void)view;
	return create(handle, resource, texture, true);
}

SIM_EXPORT CUresult cuTexObjectDestroy(CUtexObject handle)
{
	return destroy(handle, true);
}

SIM_EXPORT CUresult cuTexObjectGetResourceDesc(CUDA_RESOURCE_DESC *out, CUtexObject handle)
{
	return resource_of(out, handle, true);
}

SIM_EXPORT CUresult cuTexObjectGetTextureDesc(CUDA_TEXTURE_DESC *out, CUtexObject handle)
{
	struct sim_object copy;
	CUresult rc = copy_of(handle, true, out, &copy);
	if (rc == CUDA_SUCCESS)
		*out = copy.texture;
	return rc;
}

SIM_EXPORT CUresult cuSurfObjectCreate(CUsurfObject *handle, const CUDA_RESOURCE_DESC *resource)
{
	return create(handle, resource, NULL, false);
}

SIM_EXPORT CUresult cuSurfObjectDestroy(CUsurfObject handle)
{
	return destroy(handle, false);
}

SIM_EXPORT CUresult cuSurfObjectGetResourceDesc(CUDA_RESOURCE_DESC *out, CUsurfObject handle)
{
	return resource_of(out, handle, false);
}
