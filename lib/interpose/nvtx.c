/* NVTX injection: with NVTX_INJECTION64_PATH naming libvramtrace.so, every
 * NVTX range a program pushes (torch.cuda.nvtx.range included) tags the
 * allocations made inside it. NVTX is header-only: each module that uses it
 * looks this library up by that variable and calls
 * InitializeInjectionNvtx2, which fills in the range functions. */
#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

#include "../core/tag_stack.h"
#include "../core/tags.h"
#include "../config.h"
#include "../sources/call.h"

VT_EXPORT int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_export_table);

/* Innermost name, or "outer/inner" under VRAMTRACE_NVTX=path. */
static int push_name(const char *name)
{
	VT_TRACER_WORK();
	uint32_t tag = vt_tag_intern(name);
	uint32_t outer = vt_tag_top(VT_TAG_FROM_NVTX);
	if (outer != VT_TAG_UNTAGGED && vt_config()->nvtx_path) {
		char path[VT_TAG_MAX_NAME + 1];
		snprintf(path, sizeof(path), "%s/%s", vt_tag_name(outer), name);
		tag = vt_tag_intern(path);
	}
	vt_tag_push(VT_TAG_FROM_NVTX, tag);
	return 0;
}

/* NVTX's wide strings are UTF-32 on Linux; tags are UTF-8. */
static void to_utf8(const wchar_t *wide, char *out, size_t size)
{
	size_t used = 0;
	for (; wide && *wide && used + 5 < size; wide++) {
		uint32_t c = (uint32_t)*wide;
		if (c < 0x80) {
			out[used++] = (char)c;
		} else if (c < 0x800) {
			out[used++] = (char)(0xC0 | c >> 6);
			out[used++] = (char)(0x80 | (c & 0x3F));
		} else if (c < 0x10000) {
			out[used++] = (char)(0xE0 | c >> 12);
			out[used++] = (char)(0x80 | ((c >> 6) & 0x3F));
			out[used++] = (char)(0x80 | (c & 0x3F));
		} else {
			out[used++] = (char)(0xF0 | c >> 18);
			out[used++] = (char)(0x80 | ((c >> 12) & 0x3F));
			out[used++] = (char)(0x80 | ((c >> 6) & 0x3F));
			out[used++] = (char)(0x80 | (c & 0x3F));
		}
	}
	out[used] = '\0';
}

/* Registered strings are handed out as their tag id plus one. */
static nvtxStringHandle_t register_string(nvtxDomainHandle_t domain, const char *string)
{
	(void)domain;
	return (nvtxStringHandle_t)(uintptr_t)(vt_tag_intern(string) + 1u);
}

static nvtxStringHandle_t register_string_wide(nvtxDomainHandle_t domain, const wchar_t *string)
{
	char name[VT_TAG_MAX_NAME + 1];
	to_utf8(string, name, sizeof(name));
	return register_string(domain, name);
}

static int push_attributes(const nvtxEventAttributes_t *attributes)
{
	char name[VT_TAG_MAX_NAME + 1] = "";
	if (!attributes)
		return push_name("");
	switch (attributes->messageType) {
	case NVTX_MESSAGE_TYPE_ASCII:
		return push_name(attributes->message.ascii ? attributes->message.ascii : "");
	case NVTX_MESSAGE_TYPE_UNICODE:
		to_utf8(attributes->message.unicode, name, sizeof(name));
		return push_name(name);
	case NVTX_MESSAGE_TYPE_REGISTERED: {
		uintptr_t handle = (uintptr_t)attributes->message.registered;
		return push_name(handle ? vt_tag_name((uint32_t)(handle - 1)) : "");
	}
	default: return push_name("");
	}
}

static int range_push_a(const char *message)
{
	return push_name(message ? message : "");
}

static int range_push_w(const wchar_t *message)
{
	char name[VT_TAG_MAX_NAME + 1];
	to_utf8(message, name, sizeof(name));
	return push_name(name);
}

static int range_pop(void)
{
	return vt_tag_pop(VT_TAG_FROM_NVTX) ? 0 : -1;
}

static int domain_range_push(nvtxDomainHandle_t domain, const nvtxEventAttributes_t *attributes)
{
	(void)domain;
	return push_attributes(attributes);
}

static int domain_range_pop(nvtxDomainHandle_t domain)
{
	(void)domain;
	return range_pop();
}

static void set_slot(NvtxFunctionTable table, unsigned size, unsigned id, NvtxFunctionPointer fn)
{
	if (table && id < size && table[id])
		*table[id] = fn;
}

#define FN(f) ((NvtxFunctionPointer)(void (*)(void))(f))

VT_EXPORT int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_export_table)
{
	const NvtxExportTableCallbacks *callbacks =
		get_export_table ? get_export_table(NVTX_ETID_CALLBACKS) : NULL;
	if (!callbacks || !callbacks->GetModuleFunctionTable)
		return 0;
	NvtxFunctionTable table = NULL;
	unsigned size = 0;
	if (callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &table, &size)) {
		set_slot(table, size, NVTX_CBID_CORE_RangePushEx, FN(push_attributes));
		set_slot(table, size, NVTX_CBID_CORE_RangePushA, FN(range_push_a));
		set_slot(table, size, NVTX_CBID_CORE_RangePushW, FN(range_push_w));
		set_slot(table, size, NVTX_CBID_CORE_RangePop, FN(range_pop));
	}
	if (callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &table, &size)) {
		set_slot(table, size, NVTX_CBID_CORE2_DomainRangePushEx, FN(domain_range_push));
		set_slot(table, size, NVTX_CBID_CORE2_DomainRangePop, FN(domain_range_pop));
		set_slot(table, size, NVTX_CBID_CORE2_DomainRegisterStringA, FN(register_string));
		set_slot(table, size, NVTX_CBID_CORE2_DomainRegisterStringW,
			 FN(register_string_wide));
	}
	return 1;
}
