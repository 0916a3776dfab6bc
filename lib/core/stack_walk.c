#define _GNU_SOURCE
#include "stack_walk.h"

#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>
#include <ucontext.h>

#include "thread_space.h"
#include "unwind_cache.h"
#include "unwind_rule.h"

/* The loader's counts of loads (dlopen) and unloads (dlclose), read in one
 * call: unloads tell a walk that a rule found before one may belong to code
 * no longer there; loads, kept as this thread last read them, tell the
 * caller that new code (an interpreter) may be there. */
struct loader_counts {
	unsigned long long loads, unloads;
};

static __thread unsigned long long loads_seen __attribute__((tls_model("initial-exec")));

static int read_counts(struct dl_phdr_info *info, size_t size, void *context)
{
	(void)size;
	*(struct loader_counts *)context = (struct loader_counts){info->dlpi_adds, info->dlpi_subs};
	return 1;
}

static uint32_t code_generation(void)
{
	struct loader_counts counts = {0, 0};
	dl_iterate_phdr(read_counts, &counts);
	loads_seen = counts.loads;
	return (uint32_t)counts.unloads;
}

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

/* A word a walk read, noted for the next walk to check (see memo_replay). */
struct memo_word {
	uintptr_t address, value;
};

struct stacks {
	struct region regions[3];
	unsigned count;
	bool asked_signal_stack;
	struct region *last_hit;             /* where the walk read last: most reads follow it */
	struct memo_word *noted, *noted_end; /* reads are noted while noted < noted_end */
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
	stacks->noted = stacks->noted_end = NULL;
	stacks->regions[0] = stacks->regions[1] = (struct region){0}; /* nothing until added */
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
	if (stacks->noted < stacks->noted_end)
		*stacks->noted++ = (struct memo_word){address, *value};
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

static bool rule_for(uintptr_t pc, uint32_t generation, struct vt_unwind_rule *rule)
{
	if (vt_unwind_cache_get(pc, generation, rule))
		return true;
	if (!vt_unwind_rule_for(pc, rule))
		return false;
	vt_unwind_cache_put(pc, generation, *rule);
	return true;
}

/* Where a walk stands between two steps. */
struct walk {
	struct stacks stacks;
	struct vt_registers regs;
	bool interrupted; /* regs are an interrupted frame's (the last step was a signal's) */
	unsigned kept, steps;
};

/* The thread's last walk, for the next one: most walks of a thread start
 * where the last one did and climb the same frames, and a step depends
 * only on the registers, the stacks' bounds, the rules and the words it
 * reads. A walk from the last one's start, over stacks that hold the last
 * one's, takes each of its steps for which every word read still holds,
 * at a load and a compare a word instead of a rule lookup and a step. */
enum { MEMO_STEPS = 144 }; /* 128 frames kept and the tracer's own */

/* Noting a walk costs more than the walk's steps alone (a third more, at
 * 32 frames), so a walk that differs from the memo takes its place only
 * after VT_STACK_WALK_MEMO_ADOPT_AFTER in a row: a thread that alternates
 * between call paths keeps one of them (the others walk at the plain
 * cost), and one whose paths all differ notes one walk in that many. */

/* Where the last walk stood before one of its steps. */
struct memo_state {
	struct vt_registers regs;
	uintptr_t last[2];    /* each region's highest CFA so far */
	uint16_t kept, words; /* frames kept and words read before this step */
	bool interrupted;
};

struct walk_memo {
	bool busy;       /* a walk is using it: one in a handler then does without */
	unsigned reused; /* steps the last walk took over */
	unsigned steps;  /* the steps noted: states[0 .. steps] hold */
	unsigned misses; /* walks in a row that differed from it */
	unsigned count, depth;
	uint32_t generation;
	uintptr_t low[2], high[2], own_start, own_end;
	uintptr_t frames[MEMO_STEPS]; /* kept, as states[].kept counts them */
	struct memo_state states[MEMO_STEPS + 1];
	struct memo_word words[3 * MEMO_STEPS]; /* a step reads three words at most */
};
_Static_assert(sizeof(struct walk_memo) <= VT_CACHE_WALK_BYTES, "the memo fits its space");

/* The thread's memo, unless the thread has no space yet (mapping it here
 * could be in a signal handler) or a walk this one interrupted holds it. */
static struct walk_memo *memo_take(void)
{
	struct walk_memo *memo = vt_thread_cache_if_mapped(VT_CACHE_WALK);
	if (!memo || memo->busy)
		return NULL;
	memo->busy = true;
	atomic_signal_fence(memory_order_seq_cst);
	return memo;
}

static void memo_give_back(struct walk_memo *memo)
{
	atomic_signal_fence(memory_order_seq_cst);
	memo->busy = false;
}

/* Two regions overlapping would make a read's region depend on the one
 * read before (last_hit); the memo holds only for regions apart. */
static bool regions_apart(const struct stacks *stacks)
{
	const struct region *r = stacks->regions;
	return stacks->count < 2 ||
	       (stacks->count == 2 && (r[0].high <= r[1].low || r[1].high <= r[0].low));
}

/* Every word the memo's steps read lies in its regions: in this walk's
 * too, the same one by one, where each of these holds one of the memo's,
 * and a read that passed its bounds check then passes it now. */
static bool memo_fits(const struct walk_memo *memo, const struct walk *w, uint32_t generation,
		      unsigned depth, uintptr_t own_start, uintptr_t own_end)
{
	const struct vt_registers *start = &memo->states[0].regs;
	if (memo->steps == 0 || memo->generation != generation || memo->depth != depth ||
	    memo->own_start != own_start || memo->own_end != own_end ||
	    memo->count != w->stacks.count || start->pc != w->regs.pc || start->sp != w->regs.sp ||
	    start->fp != w->regs.fp)
		return false;
	for (unsigned i = 0; i < memo->count; i++) {
		const struct region *r = &w->stacks.regions[i];
		if (r->high != memo->high[i] || r->low > memo->low[i])
			return false;
	}
	return true;
}

/* Two regions at most (regions_apart): the second's last is noted even
 * where there is none, as find_stacks zeroes it. */
static void memo_note_state(struct walk_memo *memo, const struct walk *w)
{
	const struct region *r = w->stacks.regions;
	memo->states[w->steps] = (struct memo_state){
		.regs = w->regs,
		.last = {r[0].last, r[1].last},
		.kept = (uint16_t)w->kept,
		.words = (uint16_t)(w->stacks.noted - memo->words),
		.interrupted = w->interrupted,
	};
	memo->steps = w->steps;
}

static void memo_start(struct walk_memo *memo, struct walk *w, uint32_t generation, unsigned depth,
		       uintptr_t own_start, uintptr_t own_end)
{
	memo->generation = generation;
	memo->depth = depth;
	memo->own_start = own_start;
	memo->own_end = own_end;
	memo->count = w->stacks.count;
	memo->reused = 0;
	for (unsigned i = 0; i < memo->count; i++) {
		memo->low[i] = w->stacks.regions[i].low;
		memo->high[i] = w->stacks.regions[i].high;
	}
	w->stacks.noted = memo->words;
	w->stacks.noted_end = memo->words + 3 * MEMO_STEPS;
	memo_note_state(memo, w);
}

/* After a step: noted, unless the memo is full or the step changed the
 * stacks (a signal stack asked for or added), which a replay could not. */
static void memo_note_step(struct walk_memo *memo, struct walk *w)
{
	if (w->steps <= MEMO_STEPS && w->stacks.count == memo->count &&
	    !w->stacks.asked_signal_stack) {
		memo_note_state(memo, w);
		return;
	}
	w->stacks.noted = w->stacks.noted_end = NULL;
}

/* The memo's steps before the first that read a word no longer holding.
 * One word at a time, in the order they were read: a word's address came
 * from the words before it, and only while those hold is it one the walk
 * would read now. Past one that differs it may be anywhere in a region,
 * and a region is not all mapped (a coroutine's stack, unmapped since, in
 * one that reaches up to the thread's descriptor). */
__attribute__((no_sanitize_address)) static unsigned
memo_steps_holding(const struct walk_memo *memo)
{
	unsigned count = memo->states[memo->steps].words, i = 0;
	const struct memo_word *word = memo->words;
	while (i < count && *(const uintptr_t *)word[i].address == word[i].value)
		i++;
	if (i == count)
		return memo->steps;
	unsigned step = 0;
	while (memo->states[step + 1].words <= i)
		step++;
	return step;
}

/* Takes the memo's first steps (those that still hold), then stands where
 * the next one started. Noting, the walk goes on writing the memo from
 * there, and the memo takes this walk's regions, which hold its own;
 * else the memo is left as it was. */
static void memo_replay(struct walk_memo *memo, struct walk *w, uintptr_t *frames, unsigned step,
			bool note)
{
	const struct memo_state *at = &memo->states[step];
	memcpy(frames, memo->frames, at->kept * sizeof(*frames));
	w->regs = at->regs;
	w->interrupted = at->interrupted;
	w->kept = at->kept;
	w->steps = step;
	for (unsigned i = 0; i < memo->count; i++)
		w->stacks.regions[i].last = at->last[i];
	memo->reused = step;
	if (!note)
		return;
	for (unsigned i = 0; i < memo->count; i++)
		memo->low[i] = w->stacks.regions[i].low;
	memo->steps = step;
	w->stacks.noted = memo->words + at->words;
	w->stacks.noted_end = memo->words + 3 * MEMO_STEPS;
}

/* Whether the memo serves this walk, and how far: replays what holds,
 * and decides whether this walk is noted (memo_start when it does not
 * fit at all). */
static void memo_use(struct walk_memo *memo, struct walk *w, uintptr_t *frames, uint32_t generation,
		     unsigned depth, uintptr_t own_start, uintptr_t own_end)
{
	bool fits = memo_fits(memo, w, generation, depth, own_start, own_end);
	unsigned step = fits ? memo_steps_holding(memo) : 0;
	bool holds = fits && step == memo->steps;
	memo->misses = holds ? 0 : memo->misses + 1;
	bool note = holds || memo->steps == 0 || memo->misses >= VT_STACK_WALK_MEMO_ADOPT_AFTER;
	if (note)
		memo->misses = 0;
	if (fits)
		memo_replay(memo, w, frames, step, note);
	else if (note)
		memo_start(memo, w, generation, depth, own_start, own_end);
	else
		memo->reused = 0;
}

/* Fresh steps from where the walk stands. */
__attribute__((no_sanitize_address)) static void walk_on(struct walk *w, uintptr_t *frames,
							 unsigned depth, uint32_t generation,
							 uintptr_t own_start, uintptr_t own_end,
							 struct walk_memo *memo)
{
	/* The first three frames are vt_stack_walk's, its caller's and that one's caller's (whose
	 * own caller frames[0] names). A return address minus one finds the row of its call; an
	 * interrupted instruction's own address finds its row. */
	for (; w->kept < depth && w->steps < depth + OWN_STEPS_MAX;) {
		uintptr_t pc = w->regs.pc;
		if (pc == 0)
			break; /* the outermost frame's caller, as glibc marks it */
		if (w->steps >= 3 && (pc < own_start || pc >= own_end)) {
			if (w->stacks.noted_end && w->kept < MEMO_STEPS)
				memo->frames[w->kept] = pc;
			frames[w->kept++] = pc;
		}
		struct vt_unwind_rule rule;
		if (!rule_for(pc - !w->interrupted, generation, &rule) || rule.kind == VT_RULE_END)
			break;
		w->interrupted = rule.kind == VT_RULE_SIGNAL;
		if (!(w->interrupted ? step_signal(&w->stacks, &w->regs)
				     : step(&w->stacks, &w->regs, rule)))
			break;
		w->steps++;
		if (w->stacks.noted_end)
			memo_note_step(memo, w);
	}
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
	struct walk w = {.interrupted = false};
	vt_unwind_start(&w.regs);
	find_stacks(&w.stacks, w.regs.sp);
	uint32_t generation = code_generation();
	struct walk_memo *memo = regions_apart(&w.stacks) ? memo_take() : NULL;
	if (memo)
		memo_use(memo, &w, frames, generation, depth, own_start, own_end);
	walk_on(&w, frames, depth, generation, own_start, own_end, memo);
	if (memo)
		memo_give_back(memo);
	return w.kept;
}

unsigned vt_stack_walk_steps_reused(void)
{
	struct walk_memo *memo = vt_thread_cache_if_mapped(VT_CACHE_WALK);
	return memo ? memo->reused : 0;
}

unsigned long long vt_stack_walk_loads(void)
{
	return loads_seen;
}

#else

unsigned vt_stack_walk_steps_reused(void)
{
	return 0;
}

unsigned long long vt_stack_walk_loads(void)
{
	code_generation();
	return loads_seen;
}

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
