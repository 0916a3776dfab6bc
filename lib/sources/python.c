#define _GNU_SOURCE
#include "python.h"

#include <dlfcn.h>
#include <link.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "../core/python_code.h"
#include "../core/thread_space.h"
#include "../log.h"

/* Where each version keeps what is read, from CPython's headers. */
struct layout {
	unsigned version; /* major and minor only: 0x03090000 and up */
	enum vt_py_line_format format;
	/* 3.9 and 3.10: each frame a PyFrameObject, run by its own call of the
	 * evaluation loop, its instruction an int (f_lasti). */
	bool frame_objects;
	size_t lasti;
	size_t thread_frame; /* PyThreadState: the current frame, through cframe for 3.11-12 */
	size_t cframe_frame; /* _PyCFrame.current_frame */
	bool through_cframe;
	size_t frame_code, frame_previous, frame_instruction, frame_owner;
	ptrdiff_t frame_entry;    /* 3.11's is_entry, or -1 */
	int shim_owner;           /* FRAME_OWNED_BY_CSTACK from 3.12, or -1 */
	bool instruction_is_next; /* 3.13's instr_ptr; prev_instr before */
	size_t code_filename, code_qualname, code_line_table, code_first_line, code_units;
	size_t ascii_size, compact_size;
};

static const struct layout layouts[] = {
	/* Before 3.11 the name is co_name: code objects had no qualified name. */
	{0x03090000, VT_PY_LNOTAB, true,  104, 24,  0,   false, 32, 24, 0, 0,
	 -1,         -1,           false, 104, 112, 120, 40,    0,  48, 72},
	{0x030A0000, VT_PY_LINETABLE_310,
	 true,       96,
	 24,         0,
	 false,      32,
	 24,         0,
	 0,          -1,
	 -1,         false,
	 104,        112,
	 120,        40,
	 0,          48,
	 72},
	{0x030B0000, VT_PY_LOCATIONS, false, 0,   56,  8,  true, 32, 48, 56, 69, 68,
	 -1,         false,           112,   128, 136, 72, 184,  48, 72},
	{0x030C0000, VT_PY_LOCATIONS, false, 0,   56,  0,  true, 0,  8, 56, 70, -1,
	 3,          false,           112,   128, 136, 68, 192,  40, 56},
	{0x030D0000, VT_PY_LOCATIONS,
	 false,      0,
	 72,         0,
	 false,      0,
	 8,          56,
	 70,         -1,
	 3,          true,
	 112,        128,
	 136,        68,
	 200,        40,
	 56},
};

static struct {
	const struct layout *layout;
	void *(*thread_state)(void);
	int (*initialized)(void);
	const void *code_type;
	uintptr_t eval_start, eval_end;
	unsigned max_frames;
	const void *const *finalizing; /* _PyRuntime's _finalizing, or NULL */
} py;

static atomic_bool warned;
/* While no interpreter is loaded: each load (dlopen) may bring one, so
 * the next allocation after it looks again; searched_at is the loader's
 * count of loads at the last look. */
static atomic_bool absent, searching;
static _Atomic unsigned long long searched_at;

static void *symbol(const char *name)
{
	return dlsym(RTLD_DEFAULT, name);
}

/* The evaluation loop's extent, from its ELF symbol. */
static void find_eval_loop(void)
{
	void *start = symbol("_PyEval_EvalFrameDefault");
	Dl_info info;
	const ElfW(Sym) *entry = NULL;
	if (start && dladdr1(start, &info, (void **)&entry, RTLD_DL_SYMENT) && entry) {
		py.eval_start = (uintptr_t)start;
		py.eval_end = py.eval_start + entry->st_size;
	}
}

/* From 3.13 the runtime starts with _Py_DebugOffsets, which says whether
 * the build is free-threaded; no earlier build is. */
static bool free_threaded(void)
{
	const char *runtime = symbol("_PyRuntime");
	return runtime && memcmp(runtime, "xdebugpy", 8) == 0 &&
	       *(const uint64_t *)(runtime + 16) != 0;
}

/* 0x030A0000 from Py_GetVersion's "3.10.13 (main, ...)", before 3.11. */
static unsigned version_from_text(void)
{
	const char *(*get_version)(void) = (const char *(*)(void))symbol("Py_GetVersion");
	unsigned major = 0, minor = 0;
	if (!get_version || sscanf(get_version(), "%u.%u", &major, &minor) != 2)
		return 0;
	return (major << 24) | (minor << 16);
}

/* "3.10" from Py_GetVersion's "3.10.13 (main, ...)", for the warning. */
static void version_text(char *out, size_t size)
{
	const char *(*get_version)(void) = (const char *(*)(void))symbol("Py_GetVersion");
	const char *text = get_version ? get_version() : "?";
	size_t length = strcspn(text, " ");
	snprintf(out, size, "%.*s", (int)(length < size ? length : size - 1), text);
}

/* Where _PyRuntime keeps the thread state that is finalizing the
 * interpreter: after four ints (3.9, 3.10) or five (3.11, 3.12); from 3.13
 * _Py_DebugOffsets.runtime_state.finalizing says. */
static void find_finalizing(unsigned version)
{
	const char *runtime = symbol("_PyRuntime");
	if (!runtime)
		return;
	size_t offset = version >= 0x030D0000   ? (size_t) * (const uint64_t *)(runtime + 32)
			: version >= 0x030B0000 ? 24
						: 16;
	py.finalizing = (const void *const *)(runtime + offset);
}

/* Looks for the interpreter among what is loaded now: false without one,
 * or with one whose frames are not read (said once). The layout is set
 * last, for threads that read frames while a late search runs. */
static bool find_interpreter(void)
{
	const unsigned long *exported = symbol("Py_Version"); /* 3.11 on */
	py.thread_state = (void *(*)(void))symbol("PyGILState_GetThisThreadState");
	py.initialized = (int (*)(void))symbol("Py_IsInitialized");
	py.code_type = symbol("PyCode_Type");
	if (!py.thread_state || !py.initialized || !py.code_type)
		return false; /* no Python in this process (yet) */
	atomic_store(&absent, false);
	const struct layout *found = NULL;
	unsigned minor = exported ? (unsigned)(*exported & 0xFFFF0000u) : version_from_text();
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (layouts[i].version == minor)
			found = &layouts[i];
	if (!found || free_threaded()) {
		char text[32];
		version_text(text, sizeof(text));
		if (!atomic_exchange(&warned, true))
			vt_warn("Python %s%s is not one whose frames vramtrace reads (3.9 to "
				"3.13): stacks stay native",
				text, found ? ", free-threaded," : "");
		return false;
	}
	find_eval_loop();
	find_finalizing(minor);
	__atomic_store_n(&py.layout, found, __ATOMIC_RELEASE);
	return true;
}

bool vt_python_init(unsigned max_frames)
{
	py.max_frames = max_frames;
	atomic_store(&absent, true);
	return find_interpreter();
}

bool vt_python_found_late(unsigned long long now)
{
	if (!atomic_load_explicit(&absent, memory_order_relaxed))
		return false;
	if (now == atomic_load_explicit(&searched_at, memory_order_relaxed) ||
	    atomic_exchange(&searching, true))
		return false;
	atomic_store(&searched_at, now);
	bool found = find_interpreter();
	atomic_store(&searching, false);
	return found;
}

bool vt_python_is_eval_pc(uintptr_t pc)
{
	return pc >= py.eval_start && pc < py.eval_end;
}

static const void *field(const void *base, size_t offset)
{
	return *(const void *const *)((const char *)base + offset);
}

/* A str's text into out, as UTF-8: compact strings only, as many whole
 * characters as fit in size - 1 bytes. */
static void read_str(const void *object, char *out, size_t size)
{
	const struct layout *l = py.layout;
	out[0] = '\0';
	if (!object)
		return;
	const char *base = object;
	size_t length = *(const size_t *)(base + 16);
	unsigned state = *(const unsigned *)(base + 32);
	unsigned kind = (state >> 2) & 7, compact = (state >> 5) & 1, ascii = (state >> 6) & 1;
	if (!compact)
		return;
	const unsigned char *data =
		(const unsigned char *)base + (ascii ? l->ascii_size : l->compact_size);
	size_t used = 0;
	for (size_t i = 0; i < length; i++) {
		uint32_t c = kind == 1   ? data[i]
			     : kind == 2 ? ((const uint16_t *)data)[i]
					 : ((const uint32_t *)data)[i];
		size_t width = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
		if (used + width >= size)
			break; /* whole characters only, and the NUL */
		if (c < 0x80) {
			out[used++] = (char)c;
		} else if (c < 0x800) {
			out[used++] = (char)(0xC0 | (c >> 6));
			out[used++] = (char)(0x80 | (c & 63));
		} else if (c < 0x10000) {
			out[used++] = (char)(0xE0 | (c >> 12));
			out[used++] = (char)(0x80 | ((c >> 6) & 63));
			out[used++] = (char)(0x80 | (c & 63));
		} else {
			out[used++] = (char)(0xF0 | (c >> 18));
			out[used++] = (char)(0x80 | ((c >> 12) & 63));
			out[used++] = (char)(0x80 | ((c >> 6) & 63));
			out[used++] = (char)(0x80 | (c & 63));
		}
	}
	out[used] = '\0';
}

/* The first sight of a code object: a copy of what resolving needs. */
static uint32_t copy_code(const void *code)
{
	const struct layout *l = py.layout;
	char qualname[512], filename[512]; /* as the report's frames hold them */
	read_str(field(code, l->code_qualname), qualname, sizeof(qualname));
	read_str(field(code, l->code_filename), filename, sizeof(filename));
	const char *table = field(code, l->code_line_table);
	struct vt_py_code copy = {
		.qualname = qualname,
		.filename = filename,
		.first_line = *(const int *)((const char *)code + l->code_first_line),
		.format = l->format,
		.line_table = table ? (const uint8_t *)table + 32 : NULL,
		.line_table_size = table ? *(const size_t *)(table + 16) : 0,
	};
	return vt_py_code_add(&copy);
}

/* Code objects already copied, per thread: the hot path takes no lock. A
 * freed code object's address is soon reused, often by one made with
 * replace() or exec that shares its file name object and first line and
 * differs only in its name or its lines (the name and line table objects
 * freed with it may be reused too): so a hit must also match the name and
 * line table objects, the table's length and the name's text, else the
 * object is copied anew (the table then finds an identical copy). */
struct code_seen {
	const void *code;
	const void *filename, *qualname, *line_table;
	uint64_t qualname_text; /* name_fingerprint of the name */
	size_t line_table_size;
	int first_line;
	uint32_t id;
};
#define CODES_SEEN 512
_Static_assert(sizeof(struct code_seen) * CODES_SEEN <= VT_CACHE_PYTHON_CODE_BYTES,
	       "the code cache fits its per-thread space");

/* The name's length and its first 64 bytes of text, mixed. */
static inline uint64_t name_fingerprint(const void *object)
{
	if (!object)
		return 0;
	const char *base = object;
	size_t length = *(const size_t *)(base + 16);
	unsigned state = *(const unsigned *)(base + 32);
	unsigned kind = (state >> 2) & 7, ascii = (state >> 6) & 1;
	if (!((state >> 5) & 1))
		return length; /* not compact: read_str copies none of it either */
	const unsigned char *data = (const unsigned char *)base +
				    (ascii ? py.layout->ascii_size : py.layout->compact_size);
	size_t bytes = length * (kind ? kind : 1);
	uint64_t hash = 0xcbf29ce484222325ull ^ length, word;
	if (bytes < 8) {
		for (size_t i = 0; i < bytes; i++)
			hash = (hash ^ data[i]) * 0x100000001b3ull;
		return hash;
	}
	/* A word at a time, the last one ending at the text's end: this runs
	 * for every frame of every allocation. */
	size_t end = bytes < 64 ? bytes : 64;
	for (size_t i = 0; i + 8 < end; i += 8) {
		memcpy(&word, data + i, 8);
		hash = (hash ^ word) * 0x100000001b3ull;
	}
	memcpy(&word, data + end - 8, 8);
	return (hash ^ word) * 0x100000001b3ull;
}

static inline size_t table_size(const void *table)
{
	return table ? *(const size_t *)((const char *)table + 16) : 0;
}

static __attribute__((noinline)) uint32_t copy_into_seen(const void *code, struct code_seen *slot,
							 const struct code_seen *key)
{
	uint32_t id = copy_code(code);
	if (id != UINT32_MAX) {
		*slot = *key;
		slot->id = id;
	}
	return id;
}

static inline uint32_t code_id(const void *code)
{
	const struct layout *l = py.layout;
	const void *qualname = field(code, l->code_qualname);
	const void *line_table = field(code, l->code_line_table);
	struct code_seen key = {
		.code = code,
		.filename = field(code, l->code_filename),
		.qualname = qualname,
		.line_table = line_table,
		.qualname_text = name_fingerprint(qualname),
		.line_table_size = table_size(line_table),
		.first_line = *(const int *)((const char *)code + l->code_first_line),
	};
	struct code_seen *seen = vt_thread_cache(VT_CACHE_PYTHON_CODE);
	if (!seen)
		return copy_code(code);
	struct code_seen *slot = &seen[((uintptr_t)code >> 4) % CODES_SEEN];
	if (__builtin_expect(slot->code == code && slot->filename == key.filename &&
				     slot->qualname == qualname && slot->line_table == line_table &&
				     slot->qualname_text == key.qualname_text &&
				     slot->line_table_size == key.line_table_size &&
				     slot->first_line == key.first_line,
			     1))
		return slot->id;
	return copy_into_seen(code, slot, &key);
}

/* The frame's code object, or NULL for a frame that runs no Python code. */
static inline const void *frame_code(const struct layout *l, const void *frame)
{
	if (l->shim_owner >= 0 && *((const char *)frame + l->frame_owner) == l->shim_owner)
		return NULL;
	const void *code = field(frame, l->frame_code);
	return code && field(code, 8) == py.code_type ? code : NULL;
}

/* Where the frame is: a code unit from 3.11, a byte offset before. */
static inline uint32_t instruction(const struct layout *l, const void *frame, const void *code)
{
	if (l->frame_objects) {
		int lasti = *(const int *)((const char *)frame + l->lasti);
		return lasti < 0                          ? 0
		       : l->format == VT_PY_LINETABLE_310 ? (uint32_t)lasti * 2
							  : (uint32_t)lasti;
	}
	const char *at = field(frame, l->frame_instruction);
	const char *first = (const char *)code + l->code_units;
	return at && at >= first ? (uint32_t)((at - first) / 2) : 0;
}

/* A run of frames ends at 3.11's entry frame, or before 3.12's shim. */
static inline bool ends_run(const struct layout *l, const void *frame)
{
	if (l->frame_objects)
		return true; /* one evaluation loop call per frame */
	if (l->frame_entry >= 0)
		return *((const char *)frame + l->frame_entry) != 0;
	const void *previous = field(frame, l->frame_previous);
	return !previous || *((const char *)previous + l->frame_owner) == l->shim_owner;
}

/* While the interpreter is finalized (Py_IsInitialized is false), only the
 * finalizing thread runs Python: __del__ methods, weakref callbacks and
 * the modules' teardown. Its own thread state lives until that thread
 * frees it, after the thread-state lookup stops returning it; another
 * thread's may be freed under it at any time, so it is not read. */
static const void *finalizing_thread_state(void)
{
	const void *finalizing =
		py.finalizing ? __atomic_load_n(py.finalizing, __ATOMIC_ACQUIRE) : NULL;
	if (!finalizing)
		return NULL;
	const void *state = py.thread_state();
	return state == finalizing ? state : NULL;
}

static const void *current_frame(void)
{
	const struct layout *l = py.layout;
	const void *state;
	if (py.initialized())
		state = py.thread_state();
	else
		state = finalizing_thread_state();
	if (!state)
		return NULL; /* a thread that never ran Python */
	const void *frame = field(state, l->thread_frame);
	return frame && l->through_cframe ? field(frame, l->cframe_frame) : frame;
}

/* The hot loop: the layout is copied once, so that nothing reloads it. */

unsigned vt_python_frames(uintptr_t *frames, unsigned max, unsigned *runs, unsigned max_runs,
			  unsigned *run_count)
{
	*run_count = 0;
	const struct layout *layout = __atomic_load_n(&py.layout, __ATOMIC_ACQUIRE);
	if (!layout)
		return 0;
	if (max > py.max_frames)
		max = py.max_frames;
	const struct layout l = *layout;
	unsigned count = 0, in_run = 0;
	for (const void *frame = current_frame(); frame && count < max;
	     frame = field(frame, l.frame_previous)) {
		const void *code = frame_code(&l, frame);
		if (code) {
			uint32_t id = code_id(code);
			if (id != UINT32_MAX) {
				frames[count++] = vt_py_frame(id, instruction(&l, frame, code));
				in_run++;
			}
		}
		if (ends_run(&l, frame) && in_run && *run_count < max_runs) {
			runs[(*run_count)++] = in_run;
			in_run = 0;
		}
	}
	if (in_run && *run_count < max_runs)
		runs[(*run_count)++] = in_run;
	return count;
}
