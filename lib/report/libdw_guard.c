#define _GNU_SOURCE
#include "libdw_guard.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../core/fault_escape.h"

/* The thread-local data of a module, as its PT_TLS segment says. */
struct tls_module {
	size_t id;
	const void *image;
	size_t image_bytes, bytes, offset; /* offset in a thread's block */
};

enum { MODULES = 2 }; /* libdw, libelf */

static struct {
	struct tls_module modules[MODULES];
	unsigned count;
	size_t block_bytes;
} guard;

typedef struct {
	unsigned long module, offset;
} tls_index;

static __thread char *mine __attribute__((tls_model("initial-exec")));

void vt_libdw_guard_enter(sigjmp_buf *to)
{
	vt_fault_escape_set(to);
}

void vt_libdw_guard_leave(void)
{
	vt_fault_escape_set(NULL);
}

/* To the escape the caller set, where it set one. */
static void leave_libdw(void)
{
	sigjmp_buf *to = vt_fault_escape_current();
	if (to)
		siglongjmp(*to, 1);
}

/* libdw's error(): out of memory it calls error(EXIT_FAILURE, ...), which
 * would end the program. Here it ends the symbolizing instead. */
static void on_error(int status, int errnum, const char *format, ...)
{
	(void)errnum;
	(void)format;
	if (status != 0)
		leave_libdw();
}

/* Its assertions, which fail on some paths where an allocation did. */
static void on_assert(const char *assertion, const char *file, unsigned line, const char *function)
{
	(void)assertion, (void)file, (void)line, (void)function;
	leave_libdw();
	abort();
}

static void on_abort(void)
{
	leave_libdw();
	abort();
}

/* And the faults of a path that used what it failed to allocate: the
 * tracer's handlers of SIGSEGV and SIGBUS (its own for the default action,
 * the one that calls the program's handler otherwise) take them first while
 * this thread is inside libdw (core/fault_escape.h). No action is changed
 * for it: one changed for the process, from whichever thread writes a
 * report, would show itself to the program's sigaction, and putting it
 * back would undo an action the program set meanwhile. */
void vt_libdw_guard_faults_begin(sigset_t *mask)
{
	/* A fault while blocked kills outright (the final report holds the
	 * ending signals back): on this thread they are let through. */
	sigset_t just;
	sigemptyset(&just);
	sigaddset(&just, SIGSEGV);
	sigaddset(&just, SIGBUS);
	pthread_sigmask(SIG_UNBLOCK, &just, mask);
}

void vt_libdw_guard_faults_end(const sigset_t *mask)
{
	pthread_sigmask(SIG_SETMASK, mask, NULL);
}

/* This thread's copy of libdw's and libelf's thread-local data, mapped by
 * the tracer: ld.so would malloc it on first use and abort the process when
 * that fails. */
static char *thread_block(void)
{
	if (mine)
		return mine;
	char *block = mmap(NULL, guard.block_bytes, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (block == MAP_FAILED)
		return NULL;
	for (unsigned i = 0; i < guard.count; i++)
		memcpy(block + guard.modules[i].offset, guard.modules[i].image,
		       guard.modules[i].image_bytes);
	mine = block;
	return block;
}

static void *(*real_tls_get_addr)(tls_index *);

__attribute__((force_align_arg_pointer)) static void *tls_get_addr(tls_index *index)
{
	for (unsigned i = 0; i < guard.count; i++) {
		if (guard.modules[i].id != index->module)
			continue;
		char *block = thread_block();
		if (block)
			return block + guard.modules[i].offset + index->offset;
		leave_libdw();
	}
	return real_tls_get_addr(index);
}

static int learn_tls(struct dl_phdr_info *info, size_t size, void *context)
{
	(void)size;
	const struct link_map *map = context;
	if (info->dlpi_addr != map->l_addr || !info->dlpi_tls_modid || guard.count == MODULES)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *segment = &info->dlpi_phdr[i];
		if (segment->p_type != PT_TLS)
			continue;
		size_t align = segment->p_align > 16 ? segment->p_align : 16;
		size_t offset = (guard.block_bytes + align - 1) / align * align;
		guard.modules[guard.count++] = (struct tls_module){
			info->dlpi_tls_modid, (const void *)(info->dlpi_addr + segment->p_vaddr),
			segment->p_filesz, segment->p_memsz, offset};
		guard.block_bytes = offset + segment->p_memsz;
		return 1;
	}
	return 0;
}

static uintptr_t address(const struct link_map *map, ElfW(Addr) value)
{
	/* ld.so relocates these in place where the dynamic section is
	 * writable, not where it is read-only. */
	return value < map->l_addr ? map->l_addr + value : value;
}

struct relro_search {
	uintptr_t base, at;
	bool inside;
};

static int find_relro(struct dl_phdr_info *info, size_t size, void *context)
{
	(void)size;
	struct relro_search *search = context;
	if (info->dlpi_addr != search->base)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *segment = &info->dlpi_phdr[i];
		uintptr_t start = info->dlpi_addr + segment->p_vaddr;
		if (segment->p_type == PT_GNU_RELRO && search->at >= start &&
		    search->at < start + segment->p_memsz)
			search->inside = true;
	}
	return 1;
}

/* A slot in the RELRO part is read-only after loading: opened for the
 * write, and closed again; any other is written as it is. */
static void put(const struct link_map *map, void **slot, void *value)
{
	struct relro_search search = {map->l_addr, (uintptr_t)slot, false};
	dl_iterate_phdr(find_relro, &search);
	if (!search.inside) {
		*slot = value;
		return;
	}
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t start = (uintptr_t)slot & ~(uintptr_t)(page - 1);
	if (mprotect((void *)start, (size_t)page, PROT_READ | PROT_WRITE) != 0)
		return;
	*slot = value;
	mprotect((void *)start, (size_t)page, PROT_READ);
}

static bool is_slot(ElfW(Xword) info)
{
#if defined(__x86_64__)
	return ELF64_R_TYPE(info) == R_X86_64_JUMP_SLOT || ELF64_R_TYPE(info) == R_X86_64_GLOB_DAT;
#elif defined(__aarch64__)
	return ELF64_R_TYPE(info) == R_AARCH64_JUMP_SLOT ||
	       ELF64_R_TYPE(info) == R_AARCH64_GLOB_DAT;
#else
	return false;
#endif
}

static void patch_relocations(const struct link_map *map, const ElfW(Rela) * relocations,
			      size_t bytes, const ElfW(Sym) * symbols, const char *names)
{
	for (size_t i = 0; relocations && i < bytes / sizeof(*relocations); i++) {
		const ElfW(Rela) *r = &relocations[i];
		if (!is_slot(r->r_info))
			continue;
		const char *name = names + symbols[ELF64_R_SYM(r->r_info)].st_name;
		void **slot = (void **)(map->l_addr + r->r_offset);
		if (strcmp(name, "error") == 0)
			put(map, slot, (void *)on_error);
		else if (strcmp(name, "__assert_fail") == 0)
			put(map, slot, (void *)on_assert);
		else if (strcmp(name, "abort") == 0)
			put(map, slot, (void *)on_abort);
		else if (strcmp(name, "__tls_get_addr") == 0)
			put(map, slot, (void *)tls_get_addr);
	}
}

/* Points the object's calls to error and __tls_get_addr at the guard's. */
static void patch(const struct link_map *map)
{
	const ElfW(Sym) *symbols = NULL;
	const char *names = NULL;
	const ElfW(Rela) *plt = NULL, *data = NULL;
	size_t plt_bytes = 0, data_bytes = 0;
	for (const ElfW(Dyn) *d = map->l_ld; d->d_tag != DT_NULL; d++) {
		if (d->d_tag == DT_SYMTAB)
			symbols = (const ElfW(Sym) *)address(map, d->d_un.d_ptr);
		else if (d->d_tag == DT_STRTAB)
			names = (const char *)address(map, d->d_un.d_ptr);
		else if (d->d_tag == DT_JMPREL)
			plt = (const ElfW(Rela) *)address(map, d->d_un.d_ptr);
		else if (d->d_tag == DT_PLTRELSZ)
			plt_bytes = d->d_un.d_val;
		else if (d->d_tag == DT_RELA)
			data = (const ElfW(Rela) *)address(map, d->d_un.d_ptr);
		else if (d->d_tag == DT_RELASZ)
			data_bytes = d->d_un.d_val;
	}
	if (!symbols || !names)
		return;
	patch_relocations(map, plt, plt_bytes, symbols, names);
	patch_relocations(map, data, data_bytes, symbols, names);
}

void vt_libdw_guard_install(void *libdw, void *libelf)
{
	if (!real_tls_get_addr)
		real_tls_get_addr = (void *(*)(tls_index *))dlsym(RTLD_DEFAULT, "__tls_get_addr");
	if (!real_tls_get_addr)
		return;
	void *handles[] = {libdw, libelf};
	for (int i = 0; i < 2; i++) {
		struct link_map *map = NULL;
		if (handles[i] && dlinfo(handles[i], RTLD_DI_LINKMAP, &map) == 0 && map) {
			dl_iterate_phdr(learn_tls, map);
			patch(map);
		}
	}
}
