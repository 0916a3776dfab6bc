/* vramtrace's own stack walk gives the frames glibc's backtrace() gives for
 * the same call chains: optimised and not, in a shared library, in a
 * library unloaded and another loaded in its place, deep, from a signal
 * handler (raised, and interrupting a loop), on a created thread, on the
 * tracer's own stack; and it opens no descriptor. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <ucontext.h>

#include "stack_capture.h"
#include "stack_walk.h"
#include "stacks.h"
#include "thread_space.h"
#include "unwind_cache.h"
#include "stack_walk/chain.h"

typedef int (*backtrace_fn)(void **, int);

/* libc's own backtrace, not a sanitizer's interceptor (a frame more). */
static int glibc_backtrace(void **frames, int depth)
{
	static backtrace_fn real;
	if (!real) {
		void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
		cr_assert_not_null(libc);
		real = (backtrace_fn)dlsym(libc, "backtrace");
	}
	return real(frames, depth);
}

static struct {
	unsigned ours;
	int theirs;
	uintptr_t our_frames[VT_MAX_STACK_DEPTH];
	void *their_frames[VT_MAX_STACK_DEPTH + 1];
} seen;

/* Both walks from one function: its backtrace() starts one frame lower,
 * inside it. */
__attribute__((noinline)) static void capture_both(void)
{
	seen.ours = vt_stack_capture(seen.our_frames, VT_MAX_STACK_DEPTH);
	seen.theirs = glibc_backtrace(seen.their_frames, VT_MAX_STACK_DEPTH + 1);
	__asm__ volatile("" ::: "memory");
}

static const char *name_of(uintptr_t pc)
{
	Dl_info info;
	return dladdr((void *)pc, &info) && info.dli_sname ? info.dli_sname : "?";
}

/* Both lists, where they differ. */
static void show(const char *what)
{
	for (unsigned i = 0; i < VT_MAX_STACK_DEPTH && (i < seen.ours || (int)i + 1 < seen.theirs);
	     i++) {
		uintptr_t ours = i < seen.ours ? seen.our_frames[i] : 0;
		uintptr_t theirs =
			(int)i + 1 < seen.theirs ? (uintptr_t)seen.their_frames[i + 1] : 0;
		cr_log_error("%s %2u: %#14lx %-28s %#14lx %s", what, i, (unsigned long)ours,
			     name_of(ours), (unsigned long)theirs, name_of(theirs));
	}
}

static void expect_same(const char *what, unsigned at_least)
{
	if (seen.ours + 1 != (unsigned)seen.theirs ||
	    memcmp(seen.our_frames, seen.their_frames + 1, seen.ours * sizeof(uintptr_t)) != 0)
		show(what);
	cr_assert_eq(seen.ours + 1, (unsigned)seen.theirs, "%s: %u frames, backtrace %d", what,
		     seen.ours, seen.theirs);
	for (unsigned i = 0; i < seen.ours; i++)
		cr_assert_eq(seen.our_frames[i], (uintptr_t)seen.their_frames[i + 1],
			     "%s: frame %u of %u: %#lx, backtrace %p", what, i, seen.ours,
			     (unsigned long)seen.our_frames[i], seen.their_frames[i + 1]);
	cr_assert_geq(seen.ours, at_least, "%s: %u frames", what, seen.ours);
}

static void setup(void)
{
	cr_assert(vt_stack_capture_init(NULL));
	cr_assert(vt_stack_walk_available(), "x86_64 has the walk");
}

TestSuite(stack_walk, .init = setup);

Test(stack_walk, optimised_chain_with_inlined_helpers)
{
	chain_o2(20, capture_both);
	expect_same("-O2", 22);
	chain_o2(20, capture_both); /* again, from the cache */
	expect_same("-O2, cached", 22);
}

/* Two callers of one function, alike to the byte, called from one place:
 * in middle() the walk's registers are the same whichever called it, and
 * only the words above tell them apart. */
__attribute__((noinline)) static void middle(void)
{
	capture_both();
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void caller_a(void)
{
	middle();
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void caller_b(void)
{
	middle();
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void through(void (*caller)(void))
{
	caller();
	__asm__ volatile("" ::: "memory");
}

/* A walk takes over the last one's outer frames only where every word it
 * read there still holds: walks from one place, from places sharing an
 * outer part, from callers the registers cannot tell apart, and deeper and
 * shallower ones in turn, each as backtrace() gives it. */
Test(stack_walk, each_walk_is_its_own_whatever_the_last_one_was)
{
	for (int round = 0; round < 3; round++) {
		through(caller_a);
		expect_same("through caller_a", 4);
		uintptr_t a = seen.our_frames[1];
		through(caller_b);
		expect_same("through caller_b", 4);
		cr_assert_neq(seen.our_frames[1], a, "middle's caller told apart");
		chain_o2(20, capture_both);
		expect_same("-O2, 20", 22);
		chain_o2(25, capture_both);
		expect_same("-O2, 25", 27);
		chain_o2(5, capture_both);
		expect_same("-O2, 5", 7);
		chain_o0(20, capture_both);
		expect_same("-O0 after -O2", 22);
		chain_o2(200, capture_both);
		cr_assert_eq(seen.ours, VT_MAX_STACK_DEPTH, "cut at the depth");
		chain_o2(20, capture_both);
		expect_same("-O2 after one cut at the depth", 22);
	}
}

/* Two outer callers alike to the byte: a walk from one, then from the
 * other, start alike and read the same words up to the outer caller's
 * return address, the only word that tells them apart. */
__attribute__((noinline)) static void outer_x(void (*caller)(void))
{
	through(caller);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void outer_y(void (*caller)(void))
{
	through(caller);
	__asm__ volatile("" ::: "memory");
}

/* Walks through outer's caller until the memo is theirs: a walk that
 * differs from it takes its place only after so many in a row. */
static void settle(void (*outer)(void (*)(void)), void (*caller)(void))
{
	for (int i = 0; i < VT_STACK_WALK_MEMO_ADOPT_AFTER; i++)
		outer(caller);
}

/* With the thread's space mapped a walk keeps a memo for later ones: each
 * walk takes over the steps whose words still hold, and no more; one that
 * differs leaves the memo to the walks it came from until enough in a row
 * have differed. */
static void memo_rounds(void *arg)
{
	(void)arg;
	for (int round = 0; round < 3; round++) {
		settle(outer_x, caller_a);
		outer_x(caller_a);
		expect_same("memo, outer_x, caller_a", 5);
		cr_assert_gt(vt_stack_walk_steps_reused(), 5, "a walk alike takes the memo's");
		uintptr_t a = seen.our_frames[1];
		outer_x(caller_b);
		expect_same("memo, caller_b", 5);
		cr_assert_neq(seen.our_frames[1], a, "middle's caller told apart");
		cr_assert_gt(vt_stack_walk_steps_reused(), 0, "the frames below middle's caller");
		outer_x(caller_a);
		expect_same("memo, caller_a after caller_b", 5);
		cr_assert_gt(vt_stack_walk_steps_reused(), 5,
			     "one walk that differed left the memo");
		settle(outer_x, caller_b);
		outer_x(caller_b);
		expect_same("memo, caller_b settled", 5);
		cr_assert_gt(vt_stack_walk_steps_reused(), 5, "walks that differed took the memo");
		uintptr_t x = seen.our_frames[4];
		outer_y(caller_b);
		expect_same("memo, outer_y", 5);
		cr_assert_neq(seen.our_frames[4], x, "the outer caller told apart");
		cr_assert_gt(vt_stack_walk_steps_reused(), 3, "the frames below the outer caller");
		chain_o2(20, capture_both);
		expect_same("memo, -O2, 20", 22);
		chain_o2(200, capture_both);
		cr_assert_eq(seen.ours, VT_MAX_STACK_DEPTH, "cut at the depth");
	}
}

Test(stack_walk, a_walk_takes_over_only_the_steps_that_still_hold)
{
	cr_assert_not_null(vt_thread_cache(VT_CACHE_WALK));
	memo_rounds(NULL);
	cr_assert(vt_thread_run_on_own_stack(memo_rounds, NULL));
}

/* Coroutines on stacks of their own, mapped below the thread's descriptor
 * (where a stack's region, as a walk bounds it, reaches up to it over
 * whatever lies between): one walk from a leaf under a frame of 64 KiB and
 * more frames above it; that stack unmapped, a smaller one mapped at its
 * place and the same leaf, at the same address, called straight from the
 * coroutine's start. The leaf's return address is the first word that
 * differs; the words the memo read after it were on the first stack, above
 * the second one's top, where nothing is mapped now. */
enum { COROUTINE_STACK = 256 * 1024, COROUTINE_PAD = 64 * 1024 };

static ucontext_t coroutine_return, coroutine;
static unsigned coroutine_levels;
static uintptr_t coroutine_leaf_at;

__attribute__((noinline)) static void coroutine_leaf(void)
{
	volatile char here = 0;
	coroutine_leaf_at = (uintptr_t)&here;
	chain_o2(coroutine_levels, capture_both);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void coroutine_padded(void)
{
	volatile char pad[COROUTINE_PAD];
	pad[0] = 0;
	coroutine_leaf();
	__asm__ volatile("" : : "r"(pad) : "memory");
}

__attribute__((noinline)) static void coroutine_outer_1(void)
{
	coroutine_padded();
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void coroutine_outer_2(void)
{
	coroutine_outer_1();
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void coroutine_far(void)
{
	coroutine_outer_2();
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void coroutine_near(void)
{
	coroutine_leaf();
	__asm__ volatile("" ::: "memory");
}

/* Where the leaf's local lay, run on [base, base + size). */
static uintptr_t run_coroutine(char *base, size_t size, void (*entry)(void))
{
	cr_assert_eq(getcontext(&coroutine), 0);
	coroutine.uc_stack = (stack_t){.ss_sp = base, .ss_size = size};
	coroutine.uc_link = &coroutine_return;
	makecontext(&coroutine, entry, 0);
	coroutine.uc_mcontext.gregs[REG_RBP] = 0; /* alike on both stacks */
	cr_assert_eq(swapcontext(&coroutine_return, &coroutine), 0);
	return coroutine_leaf_at;
}

/* Free address space below the thread's descriptor, within the reach of
 * the walk's bound of a stack (1 GiB). */
static char *map_below_descriptor(size_t size)
{
	uintptr_t self = (uintptr_t)pthread_self() & ~(uintptr_t)0xfff;
	for (uintptr_t below = 64 << 20; below < (900u << 20); below += 16 << 20) {
		void *want = (void *)(self - below);
		void *got = mmap(want, size, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (got == want)
			return got;
		if (got != MAP_FAILED)
			munmap(got, size);
	}
	return NULL;
}

static void map_at(char *base, size_t size)
{
	cr_assert_eq(mmap(base, size, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0),
		     (void *)base);
}

Test(stack_walk, a_coroutine_stack_unmapped_and_a_smaller_one_in_its_place)
{
	cr_assert_not_null(vt_thread_cache(VT_CACHE_WALK));
	char *base = map_below_descriptor(COROUTINE_STACK);
	cr_assert_not_null(base, "no room below the thread's descriptor");
	/* The leaf's depth under each stack's top, for places alike. */
	uintptr_t far = base + COROUTINE_STACK -
			(char *)run_coroutine(base, COROUTINE_STACK, coroutine_far);
	uintptr_t near = base + COROUTINE_STACK -
			 (char *)run_coroutine(base, COROUTINE_STACK, coroutine_near);
	size_t small = COROUTINE_STACK - far + near;
	cr_assert_gt(far - near, COROUTINE_PAD, "the pad between the leaf and the outer frames");
	munmap(base, COROUTINE_STACK);
	/* Chains of 0 to 3 frames more below the leaf: the word that differs
	 * falls at each place in a group of the memo's words. */
	for (coroutine_levels = 1; coroutine_levels <= 4; coroutine_levels++) {
		map_at(base, COROUTINE_STACK);
		uintptr_t leaf = 0;
		for (int i = 0; i <= VT_STACK_WALK_MEMO_ADOPT_AFTER; i++) {
			leaf = run_coroutine(base, COROUTINE_STACK, coroutine_far);
			expect_same("coroutine, far", 6);
		}
		munmap(base, COROUTINE_STACK);
		map_at(base, (small + 4095) & ~(size_t)4095);
		cr_assert_eq(run_coroutine(base, small, coroutine_near), leaf,
			     "the leaf at the same place");
		expect_same("coroutine, near, on a smaller stack", 2);
		munmap(base, (small + 4095) & ~(size_t)4095);
	}
}

Test(stack_walk, unoptimised_chain)
{
	chain_o0(20, capture_both);
	expect_same("-O0", 22);
}

Test(stack_walk, chain_in_a_shared_library)
{
	chain_shared(10, capture_both);
	expect_same("shared", 12);
}

Test(stack_walk, deep_recursion_stops_at_the_depth)
{
	chain_o2(300, capture_both);
	cr_assert_eq(seen.ours, VT_MAX_STACK_DEPTH);
	cr_assert_eq(seen.theirs, VT_MAX_STACK_DEPTH + 1);
	for (unsigned i = 0; i < seen.ours; i++)
		cr_assert_eq(seen.our_frames[i], (uintptr_t)seen.their_frames[i + 1], "frame %u",
			     i);
}

static void *on_thread(void *arg)
{
	(void)arg;
	chain_o2(15, capture_both);
	return NULL;
}

Test(stack_walk, created_thread_to_its_start)
{
	pthread_t thread;
	pthread_create(&thread, NULL, on_thread, NULL);
	pthread_join(thread, NULL);
	expect_same("thread", 17);
}

static void chain_on_own_stack(void *arg)
{
	(void)arg;
	chain_o2(5, capture_both);
}

Test(stack_walk, from_the_tracer_stack_into_the_program)
{
	cr_assert(vt_thread_run_on_own_stack(chain_on_own_stack, NULL));
	expect_same("own stack", 10);
}

static void allocate_in_handler(int signal)
{
	(void)signal;
	chain_o2(3, capture_both);
}

static void raise_at_bottom(void)
{
	raise(SIGUSR1);
}

Test(stack_walk, signal_handler_through_the_signal_frame)
{
	signal(SIGUSR1, allocate_in_handler);
	chain_o0(4, raise_at_bottom);
	/* Past the signal frame: the chain raise() ran in, up to the start. */
	expect_same("handler", 20);
}

Test(stack_walk, signal_handler_on_a_signal_stack)
{
	static char alternate[64 * 1024];
	stack_t stack = {.ss_sp = alternate, .ss_size = sizeof(alternate)};
	sigaltstack(&stack, NULL);
	struct sigaction action = {.sa_handler = allocate_in_handler, .sa_flags = SA_ONSTACK};
	sigaction(SIGUSR1, &action, NULL);
	chain_o2(4, raise_at_bottom);
	expect_same("signal stack", 12);
}

static volatile sig_atomic_t interrupted;

static void handler_that_ends_the_loop(int signal)
{
	allocate_in_handler(signal);
	interrupted = 1;
}

static void spin_until_interrupted(void)
{
	while (!interrupted)
		;
}

Test(stack_walk, signal_interrupting_any_instruction)
{
	signal(SIGALRM, handler_that_ends_the_loop);
	for (int round = 0; round < 20; round++) {
		interrupted = 0;
		struct itimerval once = {.it_value = {0, 1000}};
		setitimer(ITIMER_REAL, &once, NULL);
		chain_o2(6, spin_until_interrupted);
		expect_same("interrupted loop", 14);
	}
}

typedef void (*padded_fn)(unsigned, chain_bottom);

static void *load_padded(const char *name, padded_fn *chain)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", getenv("VT_TEST_PADDED_DIR"), name);
	void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	cr_assert_not_null(library, "%s: %s", path, dlerror());
	*chain = (padded_fn)dlsym(library, "padded_chain");
	cr_assert_not_null(*chain);
	return library;
}

/* The second library usually lands where the first was: a rule kept for
 * the first must not serve the second's code at the same address. */
Test(stack_walk, library_unloaded_and_another_loaded_in_its_place)
{
	padded_fn chain;
	void *small = load_padded("libpadded_small.so", &chain);
	chain(6, capture_both);
	expect_same("first library", 8);
	uintptr_t first = (uintptr_t)chain;
	dlclose(small);
	void *large = load_padded("libpadded_large.so", &chain);
	chain(6, capture_both);
	expect_same("second library, same place", 8);
	cr_log_info("second library %s the first's place",
		    first == (uintptr_t)chain ? "took" : "missed");
	dlclose(large);
	small = load_padded("libpadded_small.so", &chain);
	chain(6, capture_both);
	expect_same("first library again", 8);
	dlclose(small);
}

Test(unwind_cache, a_rule_of_an_older_generation_is_a_miss)
{
	struct vt_unwind_rule rule = {.cfa_offset = 16, .ra_offset = -8}, got;
	vt_unwind_cache_put(0x1234, 7, rule);
	cr_assert(vt_unwind_cache_get(0x1234, 7, &got));
	cr_assert_eq(got.cfa_offset, 16);
	cr_assert_not(vt_unwind_cache_get(0x1234, 8, &got), "unloaded since");
	cr_assert_not(vt_unwind_cache_get(0x1235, 7, &got), "another address");
}

static void list_descriptors(char *out, size_t size)
{
	DIR *directory = opendir("/proc/self/fd");
	cr_assert_not_null(directory);
	out[0] = '\0';
	for (struct dirent *entry; (entry = readdir(directory));) {
		strncat(out, entry->d_name, size - strlen(out) - 2);
		strcat(out, " ");
	}
	closedir(directory);
}

static void walk_only(void)
{
	uintptr_t frames[VT_MAX_STACK_DEPTH];
	seen.ours = vt_stack_capture(frames, VT_MAX_STACK_DEPTH);
}

Test(stack_walk, opens_no_descriptor)
{
	char before[4096], after[4096];
	list_descriptors(before, sizeof(before));
	chain_o2(8, walk_only);
	chain_shared(8, walk_only);
	cr_assert(vt_thread_run_on_own_stack((void (*)(void *))walk_only, NULL));
	cr_assert_geq(seen.ours, 3);
	list_descriptors(after, sizeof(after));
	cr_assert_str_eq(after, before, "descriptors after the first walks");
}
