#define _GNU_SOURCE
#include "signals.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "../core/fault_escape.h"
#include "../library/ending.h"
#include "../library/ending_signals.h"
#include "../sources/call.h"
#include "../sources/real.h"

/* core/stack_switch.S: fn(arg) with the stack pointer at top. */
void vt_stack_switch(void (*fn)(void *), void *arg, void *top);

/* The ending signals, once the handlers are installed: where the tracer's
 * handler stands in for the default action, the program is shown what it
 * set (SIG_DFL, with its flags and mask). */
static atomic_bool watched[NSIG];
static struct sigaction shown[NSIG];

/* The faults: raised by an instruction, they are delivered even when
 * blocked, so blocking them while a report is written would change
 * nothing. */
static bool is_fault(int signal_number)
{
	return signal_number == SIGSEGV || signal_number == SIGBUS || signal_number == SIGFPE ||
	       signal_number == SIGILL || signal_number == SIGTRAP || signal_number == SIGSYS;
}

static void report_and_end(void *arg)
{
	int signal_number = *(int *)arg;
	vt_library_emergency(signal_number, true);
	vt_ending_signals_default_action(signal_number);
}

static bool on_tracer_stack(uintptr_t at);
static char *tracers_stack_top(void);

/* Only for a signal left at its default action, which ends the process:
 * the report first, then that very action. Other ending signals wait
 * meanwhile, so the first one is the one the process dies of. The report
 * takes tens of KiB of stack: where the kernel ran this on a smaller one
 * (the program's own alternate stack, 16 KiB say), it is written on the
 * tracer's, which nothing needs any more (the process ends). */
static void handler(int signal_number, siginfo_t *info, void *context)
{
	(void)context;
	vt_fault_escape_take(signal_number, info);
	int saved_errno = errno;
	volatile char here;
	char *top = tracers_stack_top();
	if (top && !on_tracer_stack((uintptr_t)&here))
		vt_stack_switch(report_and_end, &signal_number, top);
	else
		report_and_end(&signal_number);
	errno = saved_errno;
}

bool vt_signals_tracer_handles(int signal_number)
{
	struct sigaction current;
	return vt_real_sigaction(signal_number, NULL, &current) == 0 &&
	       (current.sa_flags & SA_SIGINFO) && current.sa_sigaction == handler;
}

/* The tracer's alternate stack of this thread, NULL when it has none. */
static __thread __attribute__((tls_model("initial-exec"))) char *tracer_stack;
#define ALTERNATE_STACK (256 * 1024)
/* Linux's (since 4.7), which glibc's headers leave out. */
#ifndef SS_AUTODISARM
#define SS_AUTODISARM ((int)(1u << 31))
#endif

typedef int (*sigaltstack_fn)(const stack_t *, stack_t *);
static _Atomic(sigaltstack_fn) real_sigaltstack;

static int set_stack(const stack_t *stack, stack_t *old)
{
	sigaltstack_fn fn = atomic_load(&real_sigaltstack);
	if (!fn) {
		fn = (sigaltstack_fn)vt_real_next("sigaltstack");
		atomic_store(&real_sigaltstack, fn);
	}
	if (!fn) {
		errno = ENOSYS;
		return -1;
	}
	return fn(stack, old);
}

static char *tracers_stack_top(void)
{
	return tracer_stack ? tracer_stack + ALTERNATE_STACK : NULL;
}

static bool on_tracer_stack(uintptr_t at)
{
	uintptr_t base = (uintptr_t)tracer_stack;
	return base && at >= base && at < base + ALTERNATE_STACK;
}

/* A handler of the program's with SA_ONSTACK: where the program set no
 * alternate stack, the kernel would have run it on the interrupted stack,
 * and so it runs there, never on the tracer's 256 KiB. One for SIGSEGV or
 * SIGBUS, which a fault inside the tracer's symbolizing must not reach
 * (core/fault_escape.h), whatever its flags. The kernel holds the
 * trampoline in the program's action's place, with its mask and flags. */
static struct sigaction program_action[NSIG];

static bool through_trampoline(int signal_number, const struct sigaction *action)
{
	return (action->sa_flags & SA_ONSTACK) || signal_number == SIGSEGV ||
	       signal_number == SIGBUS;
}

struct program_call {
	int signal_number;
	siginfo_t *info;
	void *context;
	struct sigaction action;
};

static void call_program(void *arg)
{
	struct program_call *call = arg;
	if (call->action.sa_flags & SA_SIGINFO)
		call->action.sa_sigaction(call->signal_number, call->info, call->context);
	else
		call->action.sa_handler(call->signal_number);
}

static uintptr_t interrupted_stack(const ucontext_t *context)
{
#if defined(__x86_64__)
	return (uintptr_t)context->uc_mcontext.gregs[REG_RSP] - 128; /* past the red zone */
#elif defined(__aarch64__)
	return (uintptr_t)context->uc_mcontext.sp;
#else
	(void)context;
	return 0;
#endif
}

static void trampoline(int signal_number, siginfo_t *info, void *context)
{
	vt_fault_escape_take(signal_number, info);
	struct program_call call = {signal_number, info, context, program_action[signal_number]};
	volatile char here;
	uintptr_t top = interrupted_stack(context) & ~(uintptr_t)15;
	if (on_tracer_stack((uintptr_t)&here) && top && !on_tracer_stack(top - 1))
		vt_stack_switch(call_program, &call, (void *)top);
	else
		call_program(&call);
}

static bool is_trampoline(const struct sigaction *action)
{
	return (action->sa_flags & SA_SIGINFO) && action->sa_sigaction == trampoline;
}

static bool is_default(const struct sigaction *action)
{
	return !(action->sa_flags & SA_SIGINFO) && action->sa_handler == SIG_DFL;
}

static bool is_tracers(const struct sigaction *action)
{
	return (action->sa_flags & SA_SIGINFO) && action->sa_sigaction == handler;
}

/* The flags that change how the tracer's handler runs; the program's
 * others travel with it, so that the kernel keeps or drops them as it
 * would the program's own. */
#define TRACER_FLAGS (SA_SIGINFO | SA_ONSTACK | SA_RESTART | SA_NODEFER | SA_RESETHAND)

static void tracer_action(int signal_number, struct sigaction *action, int program_flags)
{
	(void)signal_number;
	memset(action, 0, sizeof(*action));
	action->sa_sigaction = handler;
	action->sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART | (program_flags & ~TRACER_FLAGS);
	vt_ending_signals_fill(&action->sa_mask);
	for (size_t i = 0; i < vt_ending_signal_count; i++)
		if (is_fault(vt_ending_signal_numbers[i]))
			sigdelset(&action->sa_mask, vt_ending_signal_numbers[i]);
}

static bool is_handler(const struct sigaction *action)
{
	return (action->sa_flags & SA_SIGINFO) ||
	       (action->sa_handler != SIG_DFL && action->sa_handler != SIG_IGN);
}

/* ours: the trampoline, with the flags and mask of the program's action. */
static void trampoline_action(int signal_number, const struct sigaction *action,
			      struct sigaction *ours)
{
	program_action[signal_number] = *action;
	*ours = *action;
	ours->sa_flags |= SA_SIGINFO;
	ours->sa_sigaction = trampoline;
}

/* A signal the program handles or ignores stays the program's: its handler
 * runs where and how it asked (through the trampoline where that says). */
static void install(int signal_number)
{
	struct sigaction action, old;
	if (vt_real_sigaction(signal_number, NULL, &old) != 0)
		return;
	/* The trampoline is there already where the program's action was set
	 * before: shown holds that action. */
	if (!is_trampoline(&old))
		shown[signal_number] = old;
	atomic_store(&watched[signal_number], true);
	if (is_default(&old))
		tracer_action(signal_number, &action, 0);
	else if (!is_trampoline(&old) && is_handler(&old) &&
		 through_trampoline(signal_number, &old))
		trampoline_action(signal_number, &old, &action);
	else
		return;
	vt_real_sigaction(signal_number, &action, NULL);
}

/* The program's sigaction, once the tracer's handlers are in: asking for
 * the default action of an ending signal puts the tracer's handler in its
 * place (a crash reporter that restores the default and raises again is
 * reported too), and the program is shown what it set, never the tracer's
 * handler nor the trampoline. */

/* The program's action as a query returns it when set as given: glibc
 * adds its restorer, the kernel drops the flags it does not know and
 * SIGKILL and SIGSTOP from the mask. set is what was given in its place,
 * held as now. */
static struct sigaction as_kept(const struct sigaction *given, const struct sigaction *set,
				const struct sigaction *now)
{
	struct sigaction kept = *given;
	int dropped = set->sa_flags & ~now->sa_flags, added = now->sa_flags & ~set->sa_flags;
	kept.sa_flags = (given->sa_flags & ~dropped) | added;
	kept.sa_restorer = now->sa_restorer;
	sigdelset(&kept.sa_mask, SIGKILL);
	sigdelset(&kept.sa_mask, SIGSTOP);
	return kept;
}

static void remember(int signal_number, const struct sigaction *given, const struct sigaction *set)
{
	struct sigaction now;
	if (set != given && vt_real_sigaction(signal_number, NULL, &now) == 0)
		shown[signal_number] = as_kept(given, set, &now);
	else
		shown[signal_number] = *given;
}

int vt_signals_action(int signal_number, const struct sigaction *action, struct sigaction *old)
{
	if (signal_number <= 0 || signal_number >= NSIG)
		return vt_real_sigaction(signal_number, action, old);
	bool tracked = atomic_load(&watched[signal_number]);
	struct sigaction previous, ours;
	const struct sigaction *setting = action;
	if (action && tracked && is_default(action)) {
		tracer_action(signal_number, &ours, action->sa_flags);
		setting = &ours;
	} else if (action && is_handler(action) && through_trampoline(signal_number, action)) {
		trampoline_action(signal_number, action, &ours);
		setting = &ours;
	}
	struct sigaction was_shown = shown[signal_number];
	if (vt_real_sigaction(signal_number, setting, &previous) != 0)
		return -1;
	if (action)
		remember(signal_number, action, setting);
	if (old)
		*old = is_tracers(&previous) || is_trampoline(&previous) ? was_shown : previous;
	return 0;
}

static bool arm_tracers_stack(void);

/* The program's "none" (or the tracer's stack, shown to it as none, handed
 * back): the tracer's stack armed again, unseen, for the report after a
 * stack overflow. Refused, as the kernel would, while the thread runs on
 * the stack it would replace. */
static int set_none(stack_t *previous)
{
	if (set_stack(NULL, previous) != 0)
		return -1;
	if (previous->ss_flags & SS_ONSTACK) {
		errno = EPERM;
		return -1;
	}
	return arm_tracers_stack() ? 0 : -1;
}

/* The tracer's alternate stack is shown as none: the program sees the
 * stack it set, or that it set none. */
VT_EXPORT int sigaltstack(const stack_t *stack, stack_t *old)
{
	stack_t previous;
	bool none = stack && (stack->ss_flags & SS_DISABLE) && tracer_stack;
	if ((none ? set_none(&previous) : set_stack(stack, &previous)) != 0)
		return -1;
	if (old) {
		bool tracers = on_tracer_stack((uintptr_t)previous.ss_sp) &&
			       !(previous.ss_flags & SS_DISABLE);
		*old = tracers ? (stack_t){.ss_flags = SS_DISABLE} : previous;
	}
	return 0;
}

VT_EXPORT int sigaction(int signal_number, const struct sigaction *action, struct sigaction *old)
{
	return vt_signals_action(signal_number, action, old);
}

void vt_signals_install(void)
{
	vt_signals_prepare_thread();
	for (size_t i = 0; i < vt_ending_signal_count; i++)
		install(vt_ending_signal_numbers[i]);
	for (int number = SIGRTMIN; number <= SIGRTMAX; number++)
		install(number);
}

/* The tracer's alternate stack, for its own handler after a stack
 * overflow: mapped without reserve (untouched pages cost nothing), with a
 * guard page below it so that running past its end faults rather than
 * writes over whatever lies beneath. */
static pthread_key_t stack_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static bool have_key;

static size_t guard_size(void)
{
	long page = sysconf(_SC_PAGESIZE);
	return page > 0 ? (size_t)page : 4096;
}

/* At the thread's end. A thread that ends on the stack (pthread_exit from
 * a handler) leaves it mapped rather than pull it from under itself. */
static void release_stack(void *memory)
{
	stack_t current;
	size_t guard = guard_size();
	/* Disarmed while in use, the stack is known by where this runs. */
	if (on_tracer_stack((uintptr_t)&current) || set_stack(NULL, &current) != 0 ||
	    (current.ss_flags & SS_ONSTACK))
		return;
	if (current.ss_sp == (char *)memory + guard) {
		stack_t off = {.ss_flags = SS_DISABLE};
		if (set_stack(&off, NULL) != 0)
			return;
	}
	tracer_stack = NULL;
	munmap(memory, guard + ALTERNATE_STACK);
}

static void make_key(void)
{
	have_key = pthread_key_create(&stack_key, release_stack) == 0;
}

/* Arms the tracer's stack on this thread. Disarmed while a handler runs
 * on it, armed again as the handler returns: a signal that comes
 * meanwhile (a handler of the program's the tracer moved to the
 * interrupted stack, raising another) is delivered below it, never over
 * the frame at its top. */
static bool arm_tracers_stack(void)
{
	stack_t stack = {
		.ss_sp = tracer_stack, .ss_size = ALTERNATE_STACK, .ss_flags = SS_AUTODISARM};
	if (set_stack(&stack, NULL) == 0)
		return true;
	stack.ss_flags = 0; /* a kernel before 4.7 */
	return set_stack(&stack, NULL) == 0;
}

/* Every thread gets the stack, armed where it has none of the program's;
 * beside a program's, it is kept for writing the report, which a small
 * stack of the program's could not hold. */
void vt_signals_prepare_thread(void)
{
	if (tracer_stack)
		return;
	int saved_errno = errno;
	size_t guard = guard_size();
	char *memory = mmap(NULL, guard + ALTERNATE_STACK, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
	if (memory == MAP_FAILED) {
		errno = saved_errno;
		return;
	}
	pthread_once(&key_once, make_key);
	if (!have_key || mprotect(memory, guard, PROT_NONE) != 0 ||
	    pthread_setspecific(stack_key, memory) != 0) {
		munmap(memory, guard + ALTERNATE_STACK);
		errno = saved_errno;
		return;
	}
	tracer_stack = memory + guard;
	stack_t current;
	if (set_stack(NULL, &current) == 0 && (current.ss_flags & SS_DISABLE))
		arm_tracers_stack();
	errno = saved_errno;
}

/* The main thread too, as the library loads: its first CUDA call may never
 * come (another thread's may), and a stack overflow on it must still find
 * a stack to write the report on. Created threads get theirs as they start
 * (process.c). */
__attribute__((constructor)) static void prepare_main_thread(void)
{
	vt_signals_prepare_thread();
}
