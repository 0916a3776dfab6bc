/* The report itself, re-indented; --device keeps only that device. */
#include "formats.h"

void vt_format_json(json_t *root, const struct vt_format_options *options, FILE *out)
{
	json_t *shown = json_deep_copy(root);
	if (!shown)
		return;
	if (options->device >= 0) {
		json_t *devices = json_array();
		size_t i;
		json_t *device;
		json_array_foreach (json_object_get(root, "devices"), i, device) {
			if (vt_device_selected(device, options))
				json_array_append(devices, device);
		}
		json_object_set_new(shown, "devices", devices);
	}
	json_dumpf(shown, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', out);
	json_decref(shown);
}
