#define _GNU_SOURCE
#include "symbolize.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "../core/python_code.h"
#include "libdw_guard.h"

/* libdw is opened at report time, privately, so that loading vramtrace
 * costs nothing and its symbols never meet the program's. */
#define LIBDW_FUNCTIONS(X)                                            \
	X(begin, dwfl_begin)                                          \
	X(end, dwfl_end)                                              \
	X(proc_report, dwfl_linux_proc_report)                        \
	X(report_end, dwfl_report_end)                                \
	X(addrmodule, dwfl_addrmodule)                                \
	X(addrname, dwfl_module_addrname)                             \
	X(module_info, dwfl_module_info)                              \
	X(getsrc, dwfl_module_getsrc)                                 \
	X(lineinfo, dwfl_lineinfo)                                    \
	X(find_elf, dwfl_linux_proc_find_elf)                         \
	X(find_debuginfo, dwfl_standard_find_debuginfo)               \
	/* For inlined functions: the scopes at a pc, the concrete    \
	 * chain around the innermost, and where each was inlined. */ \
	X(addrdie, dwfl_module_addrdie)                               \
	X(getscopes, dwarf_getscopes)                                 \
	X(getscopes_die, dwarf_getscopes_die)                         \
	X(tag, dwarf_tag)                                             \
	X(diename, dwarf_diename)                                     \
	X(attr, dwarf_attr)                                           \
	X(attr_integrate, dwarf_attr_integrate)                       \
	X(formudata, dwarf_formudata)                                 \
	X(formstring, dwarf_formstring)                               \
	X(getsrcfiles, dwarf_getsrcfiles)                             \
	X(filesrc, dwarf_filesrc)

struct libdw {
#define LIBDW_DECLARE(field, symbol) __typeof__(&symbol) field;
	LIBDW_FUNCTIONS(LIBDW_DECLARE)
#undef LIBDW_DECLARE
};

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

struct vt_symbolizer {
	void *handle;
	struct libdw dw;
	Dwfl_Callbacks callbacks;
	char *debuginfo_path;
	Dwfl *dwfl;
	demangle_fn demangle;
	bool owned;    /* false for the fallback used when calloc failed */
	sigset_t mask; /* the thread's, before libdw_guard.h's */
};

/* libdw is loaded once and kept: its thread-local data then lives as long
 * as it does. A copy the program did not load itself gets the guard. */
static void *open_libdw(void)
{
	static void *kept;
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	pthread_mutex_lock(&lock);
	if (!kept) {
		void *had_libdw = dlopen("libdw.so.1", RTLD_NOW | RTLD_NOLOAD);
		void *had_libelf = dlopen("libelf.so.1", RTLD_NOW | RTLD_NOLOAD);
		kept = dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL);
		if (kept && !had_libdw) {
			void *libelf =
				had_libelf ? NULL : dlopen("libelf.so.1", RTLD_NOW | RTLD_NOLOAD);
			vt_libdw_guard_install(kept, libelf);
			if (libelf)
				dlclose(libelf);
		}
		if (had_libdw)
			dlclose(had_libdw);
		if (had_libelf)
			dlclose(had_libelf);
	}
	pthread_mutex_unlock(&lock);
	return kept;
}

/* libdw ran out of memory: its state is left as it is, never freed nor
 * unloaded, and frames are named without it. */
static void abandon_libdw(struct vt_symbolizer *s)
{
	vt_libdw_guard_leave();
	s->dwfl = NULL;
}

/* An allocation that failed inside libdw without reaching its error()
 * may still have left its tables half-updated: when growing its segment
 * table, a failed second realloc frees the first one's block while the
 * table still points at the block that realloc freed, and dwfl_end frees
 * it again. errno, cleared before the calls, tells: ENOMEM abandons libdw
 * as an escape does. */
static void abandon_after_failed_allocation(struct vt_symbolizer *s)
{
	if (errno == ENOMEM)
		abandon_libdw(s);
}

static bool load_libdw(struct vt_symbolizer *s)
{
	s->handle = open_libdw();
	if (!s->handle)
		return false;
#define LIBDW_RESOLVE(field, symbol)                               \
	if (!(*(void **)&s->dw.field = dlsym(s->handle, #symbol))) \
		return false;
	LIBDW_FUNCTIONS(LIBDW_RESOLVE)
#undef LIBDW_RESOLVE
	return true;
}

static __typeof__(&dwfl_standard_find_debuginfo) standard_find_debuginfo;

/* The C library's separate debug file (libc6-dbg) takes libdw some 40 ms
 * to read, for frames below main and under a thread's start: their names
 * come from the library's own symbols instead. */
static int find_debuginfo(Dwfl_Module *module, void **userdata, const char *name, Dwarf_Addr base,
			  const char *file, const char *debuglink, GElf_Word crc, char **found)
{
	const char *slash = name ? strrchr(name, '/') : NULL;
	const char *base_name = slash ? slash + 1 : name ? name : "";
	if (strncmp(base_name, "libc.so", 7) == 0 || strncmp(base_name, "ld-linux", 8) == 0)
		return -1;
	return standard_find_debuginfo(module, userdata, name, base, file, debuglink, crc, found);
}

static bool start_dwfl_unguarded(struct vt_symbolizer *s)
{
	s->callbacks.find_elf = s->dw.find_elf;
	standard_find_debuginfo = s->dw.find_debuginfo;
	s->callbacks.find_debuginfo = find_debuginfo;
	s->callbacks.debuginfo_path = &s->debuginfo_path;
	s->dwfl = s->dw.begin(&s->callbacks);
	if (!s->dwfl)
		return false;
	/* This thread's view of the maps: the main thread's is gone once it
	 * left by pthread_exit, though the process lives on. */
	if (s->dw.proc_report(s->dwfl, gettid()) != 0 ||
	    s->dw.report_end(s->dwfl, NULL, NULL) != 0) {
		if (errno != ENOMEM) /* else abandoned: see abandon_after_failed_allocation */
			s->dw.end(s->dwfl);
		s->dwfl = NULL;
		return false;
	}
	return true;
}

/* GCC's own demangler, from the system's libstdc++ opened privately: a C
 * program whose stack holds C++ frames (CUDA C++ code called from C, a
 * library written in C++) gets them demangled too. The host program's copy
 * is used when it has one; the library is opened once and kept. */
static demangle_fn find_demangler(void)
{
	static _Atomic(demangle_fn) kept;
	demangle_fn found = atomic_load(&kept);
	if (found)
		return found;
	found = (demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
	if (!found) {
		void *libstdcxx = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);
		found = libstdcxx ? (demangle_fn)dlsym(libstdcxx, "__cxa_demangle") : NULL;
	}
	atomic_store(&kept, found);
	return found;
}

/* Loading a library when the host is out of memory can end the process in
 * ld.so itself (libstdc++'s unique symbols): both are loaded while the
 * tracer starts, not at the report. */
void vt_symbolizer_prepare(void)
{
	open_libdw();
	find_demangler();
}

static bool start_dwfl(struct vt_symbolizer *s);

struct vt_symbolizer *vt_symbolizer_open(void)
{
	static struct vt_symbolizer fallback;
	struct vt_symbolizer *s = calloc(1, sizeof(*s));
	if (!s)
		return &fallback;
	s->owned = true;
	vt_libdw_guard_faults_begin(&s->mask);
	if (load_libdw(s))
		start_dwfl(s);
	s->demangle = find_demangler();
	return s;
}

static void copy(char *out, size_t size, const char *text)
{
	snprintf(out, size, "%s", text ? text : "");
}

static void set_function(struct vt_symbolizer *s, const char *name, struct vt_frame *out)
{
	int status = -1;
	char *demangled = name && s->demangle && name[0] == '_' && name[1] == 'Z'
				  ? s->demangle(name, NULL, NULL, &status)
				  : NULL;
	copy(out->function, sizeof(out->function), status == 0 ? demangled : name);
	free(demangled);
	/* "__libc_start_main@@GLIBC_2.34": the version is not part of the name. */
	char *version = strchr(out->function, '@');
	if (version && version != out->function)
		*version = '\0';
}

static bool start_dwfl(struct vt_symbolizer *s)
{
	sigjmp_buf escape;
	if (sigsetjmp(escape, 1)) {
		abandon_libdw(s);
		return false;
	}
	int saved_errno = errno;
	errno = 0;
	vt_libdw_guard_enter(&escape);
	bool started = start_dwfl_unguarded(s);
	vt_libdw_guard_leave();
	abandon_after_failed_allocation(s);
	errno = saved_errno;
	return started && s->dwfl;
}

static Dwfl_Module *lookup_dwfl(struct vt_symbolizer *s, uintptr_t pc, struct vt_frame *out)
{
	Dwfl_Module *module = s->dw.addrmodule(s->dwfl, pc);
	if (!module)
		return NULL;
	Dwarf_Addr start = 0;
	/* For a live process the module's name is its path in /proc/PID/maps. */
	const char *module_name =
		s->dw.module_info(module, NULL, &start, NULL, NULL, NULL, NULL, NULL);
	copy(out->module, sizeof(out->module), module_name);
	out->offset = out->pc - start;
	set_function(s, s->dw.addrname(module, pc), out);
	Dwfl_Line *line = s->dw.getsrc(module, pc);
	int line_number = 0;
	const char *file = line ? s->dw.lineinfo(line, NULL, &line_number, NULL, NULL, NULL) : NULL;
	copy(out->file, sizeof(out->file), file);
	out->line = file ? line_number : 0;
	return module;
}

/* An inlined function's name: its linkage name (demangled) where it has
 * one, as the symbol table would give, else its plain name. */
static void inlined_name(struct vt_symbolizer *s, Dwarf_Die *scope, struct vt_frame *out)
{
	Dwarf_Attribute attribute;
	const char *linkage =
		s->dw.formstring(s->dw.attr_integrate(scope, DW_AT_linkage_name, &attribute));
	const char *name = linkage ? linkage : s->dw.diename(scope);
	if (name)
		set_function(s, name, out);
}

/* Where an inlined function was called, in the function it was inlined
 * into. */
static void call_site(struct vt_symbolizer *s, Dwarf_Die *cu, Dwarf_Die *scope,
		      struct vt_frame *out)
{
	Dwarf_Attribute attribute;
	Dwarf_Word file_index = 0, line = 0;
	Dwarf_Files *files = NULL;
	size_t file_count = 0;
	out->file[0] = '\0';
	out->line = 0;
	if (s->dw.formudata(s->dw.attr(scope, DW_AT_call_file, &attribute), &file_index) != 0 ||
	    s->dw.getsrcfiles(cu, &files, &file_count) != 0 || file_index >= file_count)
		return;
	copy(out->file, sizeof(out->file), s->dw.filesrc(files, file_index, NULL, NULL));
	if (s->dw.formudata(s->dw.attr(scope, DW_AT_call_line, &attribute), &line) == 0)
		out->line = (int)line;
}

/* out[0] holds the pc's function (from the symbol table) at its line. When
 * the compiler inlined functions there, out[0] becomes the innermost of
 * them and each caller follows, at the line of its call, down to the
 * function the code lives in. Returns the frames now in out. */
static unsigned inline_chain(struct vt_symbolizer *s, Dwfl_Module *module, uintptr_t call,
			     struct vt_frame *out, unsigned max)
{
	Dwarf_Addr bias = 0;
	Dwarf_Die *cu = s->dw.addrdie(module, call, &bias), *scopes = NULL;
	int scope_count = cu ? s->dw.getscopes(cu, call - bias, &scopes) : 0;
	/* Past the first inlined scope, dwarf_getscopes follows the inlined
	 * function's abstract origin, which lost its own callers: the chain
	 * of concrete scopes around the innermost one holds them all. */
	if (scope_count > 0) {
		Dwarf_Die innermost = scopes[0];
		free(scopes);
		scopes = NULL;
		scope_count = s->dw.getscopes_die(&innermost, &scopes);
	}
	unsigned count = 1;
	for (int i = 0; i < scope_count && count < max; i++) {
		if (s->dw.tag(&scopes[i]) != DW_TAG_inlined_subroutine)
			continue;
		out[count] = out[count - 1];
		out[count - 1].inlined = true;
		inlined_name(s, &scopes[i], &out[count - 1]);
		call_site(s, cu, &scopes[i], &out[count]);
		count++;
	}
	free(scopes);
	return count;
}

/* The frames pc stands for through libdw, its inline chain included:
 * their count, or 0 when libdw does not know pc or failed (then out is
 * left as it was given). */
static unsigned symbolize_dwfl(struct vt_symbolizer *s, uintptr_t pc, struct vt_frame *out,
			       unsigned max)
{
	if (!s->dwfl)
		return 0;
	const int saved_errno = errno;
	unsigned count = 0;
	sigjmp_buf escape;
	errno = 0;
	if (sigsetjmp(escape, 1) == 0) {
		vt_libdw_guard_enter(&escape);
		Dwfl_Module *module = lookup_dwfl(s, pc, out);
		count = !module ? 0 : max > 1 ? inline_chain(s, module, pc, out, max) : 1;
		vt_libdw_guard_leave();
		if (errno != ENOMEM)
			goto done;
	}
	/* Out of memory, escaped or not: nothing libdw said may hold. */
	abandon_libdw(s);
	uintptr_t pc_kept = out->pc;
	memset(out, 0, sizeof(*out));
	out->pc = pc_kept;
	count = 0;
done:
	errno = saved_errno;
	return count;
}

static void end_dwfl(struct vt_symbolizer *s)
{
	sigjmp_buf escape;
	if (sigsetjmp(escape, 1)) {
		abandon_libdw(s);
		return;
	}
	vt_libdw_guard_enter(&escape);
	s->dw.end(s->dwfl);
	vt_libdw_guard_leave();
}

static void symbolize_dladdr(struct vt_symbolizer *s, uintptr_t pc, struct vt_frame *out)
{
	Dl_info info;
	if (!dladdr((void *)pc, &info))
		return;
	copy(out->module, sizeof(out->module), info.dli_fname);
	out->offset = out->pc - (uintptr_t)info.dli_fbase;
	set_function(s, info.dli_sname, out);
}

/* A Python frame: its function's qualified name, file and line. */
static bool symbolize_python(uintptr_t frame, struct vt_frame *out)
{
	const char *qualname, *filename;
	int line;
	if (!vt_py_frame_resolve(frame, &qualname, &filename, &line))
		return false;
	copy(out->function, sizeof(out->function), qualname);
	copy(out->file, sizeof(out->file), filename);
	out->line = line;
	out->python = true;
	return true;
}

unsigned vt_symbolize_chain(struct vt_symbolizer *s, uintptr_t pc, struct vt_frame *out,
			    unsigned max)
{
	memset(out, 0, sizeof(*out));
	out->pc = pc;
	if (vt_py_is_frame(pc)) {
		symbolize_python(pc, out);
		return 1;
	}
	/* A return address points after its call; look up the call itself. */
	uintptr_t call = pc ? pc - 1 : pc;
	unsigned count = symbolize_dwfl(s, call, out, max);
	if (!count) {
		symbolize_dladdr(s, call, out);
		return 1;
	}
	return count;
}

void vt_symbolize(struct vt_symbolizer *s, uintptr_t pc, struct vt_frame *out)
{
	vt_symbolize_chain(s, pc, out, 1);
}

void vt_symbolizer_close(struct vt_symbolizer *s)
{
	if (s->dwfl)
		end_dwfl(s);
	if (s->owned)
		vt_libdw_guard_faults_end(&s->mask);
	bool owned = s->owned;
	memset(s, 0, sizeof(*s));
	if (owned)
		free(s);
}
