#define _GNU_SOURCE
#include "signals.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../core/sink.h"
#include "../sources/call.h"
#include "../sources/real.h"

/* Every signal whose default action ends the process, but the real-time
 * ones, which follow from SIGRTMIN to SIGRTMAX. */
static const int ending[] = {SIGHUP,  SIGINT,  SIGQUIT,   SIGILL,  SIGTRAP, SIGABRT,
			     SIGBUS,  SIGFPE,  SIGUSR1,   SIGSEGV, SIGUSR2, SIGPIPE,
			     SIGALRM, SIGTERM, SIGSTKFLT, SIGXCPU, SIGXFSZ, SIGVTALRM,
			     SIGPROF, SIGIO,   SIGPWR,    SIGSYS};

#define ENDING_COUNT (sizeof(ending) / sizeof(ending[0]))

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);

extern int __sigaction(int, const struct sigaction *, struct sigaction *); /* libc's own */

/* The sigaction behind the exported one (a sanitizer's, when there is
 * one), found before any handler of the tracer's can run. */
static _Atomic(sigaction_fn) real_sigaction;

static int set_action(int signal_number, const struct sigaction *action, struct sigaction *old)
{
	sigaction_fn fn = atomic_load(&real_sigaction);
	if (!fn) {
		fn = (sigaction_fn)vt_real_next("sigaction");
		if (!fn)
			fn = __sigaction;
		atomic_store(&real_sigaction, fn);
	}
	return fn(signal_number, action, old);
}

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

void vt_signals_ending(sigset_t *set)
{
	sigemptyset(set);
	for (size_t i = 0; i < ENDING_COUNT; i++)
		sigaddset(set, ending[i]);
	for (int number = SIGRTMIN; number <= SIGRTMAX; number++)
		sigaddset(set, number);
}

/* Only for a signal left at its default action, which ends the process:
 * the report first, then that very action. Other ending signals wait
 * meanwhile, so the first one is the one the process dies of. */
static void handler(int signal_number, siginfo_t *info, void *context)
{
	(void)info;
	(void)context;
	int saved_errno = errno;
	vt_sink.emergency(signal_number, true);
	vt_signals_take_default_action(signal_number);
	errno = saved_errno;
}

/* Raised again at the default action, and let through at once while the
 * other ending signals stay blocked: the process ends of this one, with
 * its core dump as the kernel would make it. */
void vt_signals_take_default_action(int signal_number)
{
	struct sigaction default_action;
	memset(&default_action, 0, sizeof(default_action));
	default_action.sa_handler = SIG_DFL;
	set_action(signal_number, &default_action, NULL);
	raise(signal_number);
	sigset_t only;
	sigemptyset(&only);
	sigaddset(&only, signal_number);
	pthread_sigmask(SIG_UNBLOCK, &only, NULL);
}

bool vt_signals_tracer_handles(int signal_number)
{
	struct sigaction current;
	return set_action(signal_number, NULL, &current) == 0 && (current.sa_flags & SA_SIGINFO) &&
	       current.sa_sigaction == handler;
}

static bool is_default(const struct sigaction *action)
{
	return !(action->sa_flags & SA_SIGINFO) && action->sa_handler == SIG_DFL;
}

static bool is_tracers(const struct sigaction *action)
{
	return (action->sa_flags & SA_SIGINFO) && action->sa_sigaction == handler;
}

static void tracer_action(int signal_number, struct sigaction *action)
{
	(void)signal_number;
	memset(action, 0, sizeof(*action));
	action->sa_sigaction = handler;
	action->sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
	vt_signals_ending(&action->sa_mask);
	for (size_t i = 0; i < ENDING_COUNT; i++)
		if (is_fault(ending[i]))
			sigdelset(&action->sa_mask, ending[i]);
}

/* A signal the program handles or ignores stays the program's, untouched:
 * its handler runs where and how it asked. */
static void install(int signal_number)
{
	struct sigaction action, old;
	if (set_action(signal_number, NULL, &old) != 0)
		return;
	shown[signal_number] = old;
	atomic_store(&watched[signal_number], true);
	if (!is_default(&old))
		return;
	tracer_action(signal_number, &action);
	set_action(signal_number, &action, NULL);
}

/* The program's sigaction, once the tracer's handlers are in: asking for
 * the default action of an ending signal puts the tracer's handler in its
 * place (a crash reporter that restores the default and raises again is
 * reported too), and the program is shown what it set, never the tracer's
 * handler. */
VT_EXPORT int sigaction(int signal_number, const struct sigaction *action, struct sigaction *old)
{
	bool tracked =
		signal_number > 0 && signal_number < NSIG && atomic_load(&watched[signal_number]);
	if (!tracked)
		return set_action(signal_number, action, old);
	struct sigaction previous, ours;
	const struct sigaction *setting = action;
	if (action && is_default(action)) {
		tracer_action(signal_number, &ours);
		setting = &ours;
	}
	struct sigaction was_shown = shown[signal_number];
	if (set_action(signal_number, setting, &previous) != 0)
		return -1;
	if (action)
		shown[signal_number] = *action;
	if (old)
		*old = is_tracers(&previous) ? was_shown : previous;
	return 0;
}

VT_EXPORT sighandler_t signal(int signal_number, sighandler_t program_handler)
{
	struct sigaction action, old;
	memset(&action, 0, sizeof(action));
	action.sa_handler = program_handler;
	action.sa_flags = SA_RESTART; /* glibc's signal() is BSD's */
	sigemptyset(&action.sa_mask);
	sigaddset(&action.sa_mask, signal_number);
	if (sigaction(signal_number, &action, &old) != 0)
		return SIG_ERR;
	return old.sa_handler;
}

void vt_signals_install(void)
{
	vt_signals_prepare_thread();
	for (size_t i = 0; i < ENDING_COUNT; i++)
		install(ending[i]);
	for (int number = SIGRTMIN; number <= SIGRTMAX; number++)
		install(number);
}

/* The tracer's alternate stack, for its own handler after a stack
 * overflow: mapped without reserve (untouched pages cost nothing), with a
 * guard page below it so that running past its end faults rather than
 * writes over whatever lies beneath. */
#define ALTERNATE_STACK (256 * 1024)

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
	if (sigaltstack(NULL, &current) != 0 || (current.ss_flags & SS_ONSTACK))
		return;
	if (current.ss_sp == (char *)memory + guard) {
		stack_t off = {.ss_flags = SS_DISABLE};
		if (sigaltstack(&off, NULL) != 0)
			return;
	}
	munmap(memory, guard + ALTERNATE_STACK);
}

static void make_key(void)
{
	have_key = pthread_key_create(&stack_key, release_stack) == 0;
}

void vt_signals_prepare_thread(void)
{
	stack_t current;
	if (sigaltstack(NULL, &current) != 0 || !(current.ss_flags & SS_DISABLE))
		return; /* the thread has one: the program's, or ours */
	int saved_errno = errno;
	size_t guard = guard_size();
	char *memory = mmap(NULL, guard + ALTERNATE_STACK, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
	if (memory == MAP_FAILED) {
		errno = saved_errno;
		return;
	}
	pthread_once(&key_once, make_key);
	stack_t stack = {.ss_sp = memory + guard, .ss_size = ALTERNATE_STACK, .ss_flags = 0};
	if (!have_key || mprotect(memory, guard, PROT_NONE) != 0 ||
	    sigaltstack(&stack, NULL) != 0 || pthread_setspecific(stack_key, memory) != 0) {
		stack_t off = {.ss_flags = SS_DISABLE};
		sigaltstack(&off, NULL);
		munmap(memory, guard + ALTERNATE_STACK);
	}
	errno = saved_errno;
}
