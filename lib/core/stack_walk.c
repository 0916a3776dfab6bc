#define _GNU_SOURCE
#include "stack_walk.h"

#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <ucontext.h>

#include "thread_space.h"
#include "unwind_cache.h"
#include "unwind_rule.h"

#if defined(__x86_64__)

struct vt_registers {
	uintptr_t pc, sp, fp;
};
void vt_unwind_start(struct vt_registers *out);

/* The loader's own record of where the main thread's stack ends. */
extern void *__libc_stack_end;

/* A stack the walk may read: [low, high), and the highest CFA met on it
 * (frames go up a stack, never down). */
struct region {
	uintptr_t low, high, last;
};

struct stacks {
	struct region regions[3];
	unsigned count;
	bool asked_signal_stack;
	struct region *last_hit; /* where the walk read last: most reads follow it */
};

/* Past this, a stack pointer is not on the stack it is measured against. */
#define STACK_SPAN ((uintptr_t)1 << 30)
/* Below a leaf function's stack pointer, what it may use unannounced. */
#define RED_ZONE 128
/* Frames of vramtrace's own a walk may pass before the program's. */
enum { OWN_STEPS_MAX = 64 };

static void add_region(struct stacks *stacks, uintptr_t low, uintptr_t high)
{
	if (stacks->count < 3 && low < high)
		stacks->regions[stacks->count++] = (struct region){low, high, 0};
}

/* The top of the stack sp is on: the main thread's ends where the loader
 * says; a created thread's just below its thread descriptor, which glibc
 * puts at the top of the thread's stack (the caller's own one too). */
static uintptr_t stack_top(uintptr_t sp)
{
	uintptr_t end = (uintptr_t)__libc_stack_end;
	if (sp < end && end - sp < STACK_SPAN)
		return (end | 4095) + 1;
	uintptr_t self = (uintptr_t)pthread_self();
	if (sp < self && self - sp < STACK_SPAN)
		return self;
	return 0;
}

static void find_stacks(struct stacks *stacks, uintptr_t sp)
{
	uintptr_t low, high, program_sp;
	stacks->count = 0;
	stacks->asked_signal_stack = false;
	stacks->regions[0] = (struct region){0}; /* holds nothing until added */
	stacks->last_hit = &stacks->regions[0];
	if (vt_thread_own_stack(&low, &high, &program_sp) && sp >= low && sp < high) {
		add_region(stacks, sp, high);
		sp = program_sp;
	}
	add_region(stacks, sp, stack_top(sp));
}

/* A handler running on the program's signal stack: that stack too. */
static void add_signal_stack(struct stacks *stacks)
{
	stack_t current;
	stacks->asked_signal_stack = true;
	if (sigaltstack(NULL, &current) == 0 && (current.ss_flags & SS_ONSTACK))
		add_region(stacks, (uintptr_t)current.ss_sp,
			   (uintptr_t)current.ss_sp + current.ss_size);
}

static struct region *search_regions(struct stacks *stacks, uintptr_t address)
{
	for (unsigned i = 0; i < stacks->count; i++) {
		struct region *r = &stacks->regions[i];
		if (address >= r->low && address < r->high)
			return stacks->last_hit = r;
	}
	if (!stacks->asked_signal_stack) {
		add_signal_stack(stacks);
		return search_regions(stacks, address);
	}
	return NULL;
}

/* The region address is in: the one read last, almost always. */
static inline struct region *region_of(struct stacks *stacks, uintptr_t address)
{
	struct region *r = stacks->last_hit;
	if (address - r->low < r->high - r->low)
		return r;
	return search_regions(stacks, address);
}

/* Inline: a walk reads two or three words a frame. */
static inline __attribute__((always_inline)) bool load(struct stacks *stacks, uintptr_t address,
						       uintptr_t *value)
{
	struct region *r = region_of(stacks, address);
	if (!r || address + sizeof(uintptr_t) > r->high || (address & 7))
		return false;
	*value = *(const uintptr_t *)address;
	return true;
}

/* A caller's CFA lies above every CFA met before on its stack; it is the
 * address just past the frame, so it may be the stack's very top. */
static bool accept_cfa(struct stacks *stacks, uintptr_t cfa)
{
	struct region *r = region_of(stacks, cfa - 1);
	if (!r || cfa <= r->last)
		return false;
	r->last = cfa;
	return true;
}

static bool step(struct stacks *stacks, struct vt_registers *regs, struct vt_unwind_rule rule)
{
	uintptr_t cfa = (rule.cfa_base == VT_BASE_SP ? regs->sp : regs->fp) + rule.cfa_offset;
	if (rule.cfa_deref && !load(stacks, cfa, &cfa))
		return false;
	uintptr_t fp = regs->fp, pc;
	if (!accept_cfa(stacks, cfa) || !load(stacks, cfa + rule.ra_offset, &pc))
		return false;
	if (rule.fp_base == VT_BASE_CFA && !load(stacks, cfa + rule.fp_offset, &fp))
		return false;
	if (rule.fp_base == VT_BASE_FP && !load(stacks, regs->fp + rule.fp_offset, &fp))
		return false;
	*regs = (struct vt_registers){pc, cfa, fp};
	return true;
}

/* At a signal return trampoline the stack pointer is the kernel's
 * ucontext: the interrupted frame's registers are in it. */
static bool step_signal(struct stacks *stacks, struct vt_registers *regs)
{
	uintptr_t context = regs->sp;
	uintptr_t gregs = context + offsetof(ucontext_t, uc_mcontext.gregs);
	uintptr_t pc, sp, fp;
	if (!load(stacks, gregs + REG_RIP * sizeof(greg_t), &pc) ||
	    !load(stacks, gregs + REG_RSP * sizeof(greg_t), &sp) ||
	    !load(stacks, gregs + REG_RBP * sizeof(greg_t), &fp))
		return false;
	/* From a signal stack back to the thread's, first met here. */
	if (!region_of(stacks, sp))
		add_region(stacks, sp - RED_ZONE, stack_top(sp));
	*regs = (struct vt_registers){pc, sp, fp};
	return true;
}

/* Unloads so far (dlclose): a rule found before one may belong to code
 * no longer there. */
static int read_unloads(struct dl_phdr_info *info, size_t size, void *context)
{
	(void)size;
	*(uint32_t *)context = (uint32_t)info->dlpi_subs;
	return 1;
}

static uint32_t code_generation(void)
{
	uint32_t unloads = 0;
	dl_iterate_phdr(read_unloads, &unloads);
	return unloads;
}

static bool rule_for(uintptr_t pc, uint32_t generation, struct vt_unwind_rule *rule)
{
	if (vt_unwind_cache_get(pc, generation, rule))
		return true;
	if (!vt_unwind_rule_for(pc, rule))
		return false;
	vt_unwind_cache_put(pc, generation, *rule);
	return true;
}

bool vt_stack_walk_available(void)
{
	return true;
}

/* The reads are of other frames' saved words, which AddressSanitizer
 * would take for a local's overflow. Its caller is never inlined and
 * never tail-calls it (stack_capture.c). */
__attribute__((noinline, no_sanitize_address)) unsigned
vt_stack_walk(uintptr_t *frames, unsigned depth, uintptr_t own_start, uintptr_t own_end)
{
	struct vt_registers regs;
	vt_unwind_start(&regs);
	struct stacks stacks;
	find_stacks(&stacks, regs.sp);
	uint32_t generation = code_generation();
	/* The first three frames are this function's, its caller's and that one's caller's (whose
	 * own caller frames[0] names). A return address minus one finds the row of its call; an
	 * interrupted instruction's own address finds its row. */
	bool interrupted = false;
	unsigned kept = 0, skip = 3;
	for (unsigned steps = 0; kept < depth && steps < depth + OWN_STEPS_MAX; steps++) {
		if (regs.pc == 0)
			break; /* the outermost frame's caller, as glibc marks it */
		if (skip)
			skip--;
		else if (regs.pc < own_start || regs.pc >= own_end)
			frames[kept++] = regs.pc;
		struct vt_unwind_rule rule;
		if (!rule_for(regs.pc - !interrupted, generation, &rule) ||
		    rule.kind == VT_RULE_END)
			break;
		interrupted = rule.kind == VT_RULE_SIGNAL;
		if (!(interrupted ? step_signal(&stacks, &regs) : step(&stacks, &regs, rule)))
			break;
	}
	return kept;
}

#else

bool vt_stack_walk_available(void)
{
	return false;
}

unsigned vt_stack_walk(uintptr_t *frames, unsigned depth, uintptr_t own_start, uintptr_t own_end)
{
	(void)frames, (void)depth, (void)own_start, (void)own_end;
	return 0;
}

#endif
