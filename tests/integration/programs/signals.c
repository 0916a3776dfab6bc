/* What programs do with signals and endings, chosen by argv[1], each after
 * holding 64 MiB of device memory; what it prints must be the same with
 * and without vramtrace. */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MiB   (1ull << 20)
#define FRAME (1024 * 1024)

static void *held;

static int hold(void)
{
	return cudaMalloc(&held, 64 * MiB) == cudaSuccess ? 0 : 1;
}

static uintptr_t main_stack;
static char own_stack[64 * 1024];
static atomic_int where; /* 1 the thread's stack, 2 its own alternate stack */

static void note_where(const volatile char *frame)
{
	uintptr_t at = (uintptr_t)frame, own = (uintptr_t)own_stack;
	if (at >= own && at < own + sizeof(own_stack))
		atomic_store(&where, 2);
	else if (at < main_stack && main_stack - at < 64 * MiB)
		atomic_store(&where, 1);
}

/* A handler with a 1 MiB frame, as a program with deep work may have. */
static void big_frame_handler(int signal_number)
{
	volatile char frame[FRAME];
	for (size_t i = 0; i < sizeof(frame); i += 4096)
		frame[i] = (char)signal_number;
	note_where(frame + sizeof(frame) - 1);
}

static void small_handler(int signal_number)
{
	volatile char frame[64];
	frame[0] = (char)signal_number;
	note_where(frame);
}

static void on(int signal_number, void (*handler)(int), int flags)
{
	struct sigaction action;
	memset(&action, 0, sizeof(action));
	action.sa_handler = handler;
	action.sa_flags = flags;
	sigemptyset(&action.sa_mask);
	sigaction(signal_number, &action, NULL);
}

/* Where the program's handlers run: "plain", without SA_ONSTACK, with a
 * 1 MiB frame; "onstack", with SA_ONSTACK and an alternate stack of its
 * own; "onstack_unset", with SA_ONSTACK and a 1 MiB frame but no
 * alternate stack (the kernel runs it on the thread's stack, as for Go,
 * Java and Rust runtimes that set the flag on every handler). Installed
 * before CUDA is first used, and again after. */
static int handler_stacks(const char *how)
{
	volatile char anchor;
	main_stack = (uintptr_t)&anchor;
	bool onstack = strcmp(how, "onstack") == 0;
	bool unset = strcmp(how, "onstack_unset") == 0;
	if (onstack) {
		stack_t stack = {.ss_sp = own_stack, .ss_size = sizeof(own_stack)};
		sigaltstack(&stack, NULL);
	}
	int flags = onstack || unset ? SA_ONSTACK : 0;
	on(SIGUSR1, onstack ? small_handler : big_frame_handler, flags);
	if (hold())
		return 1;
	on(SIGUSR2, onstack ? small_handler : big_frame_handler, flags);
	if (unset) {
		stack_t current;
		sigaltstack(NULL, &current);
		printf("alternate stack: %s\n", current.ss_flags & SS_DISABLE ? "none" : "one");
	}
	for (int i = 0; i < 10; i++) {
		atomic_store(&where, 0);
		raise(i % 2 ? SIGUSR2 : SIGUSR1);
		printf("%s %d: %s\n", how, i,
		       atomic_load(&where) == 1   ? "on the thread's stack"
		       : atomic_load(&where) == 2 ? "on its own alternate stack"
						  : "elsewhere");
	}
	return 0;
}

/* "nested": a handler with SA_ONSTACK and no alternate stack of the
 * program's raises a second signal with one too, and a third with
 * SA_NODEFER raises itself again: each frame below the last, as the kernel
 * puts them on the thread's stack, none over another. */
static int nested_depth;

static void inner_handler(int signal_number)
{
	(void)signal_number;
	printf("  inner\n");
}

static void recursive_handler(int signal_number)
{
	volatile char frame[512];
	int depth = ++nested_depth;
	memset((char *)frame, depth, sizeof(frame));
	if (depth < 4)
		raise(signal_number);
	printf("  recursion %d, frame kept %d\n", depth, frame[0] == depth && frame[511] == depth);
}

static void outer_handler(int signal_number)
{
	(void)signal_number;
	volatile char frame[512];
	memset((char *)frame, 0x5a, sizeof(frame));
	printf(" outer\n");
	raise(SIGUSR2);
	printf(" outer again, frame kept %d\n", frame[0] == 0x5a && frame[511] == 0x5a);
}

static int nested_signals(void)
{
	if (hold())
		return 1;
	on(SIGUSR1, outer_handler, SA_ONSTACK);
	on(SIGUSR2, inner_handler, SA_ONSTACK);
	on(SIGHUP, recursive_handler, SA_ONSTACK | SA_NODEFER);
	for (int i = 0; i < 3; i++) {
		raise(SIGUSR1);
		nested_depth = 0;
		raise(SIGHUP);
	}
	printf("nested: done\n");
	return 0;
}

/* A timer's handler forks while the main thread allocates and frees: the
 * handler lands inside the tracer and the driver call again and again. */
static atomic_int forks, failed;
static bool child_exits; /* by exit(), its handlers and the tracer's run */

static void fork_on_timer(int signal_number)
{
	(void)signal_number;
	pid_t child = fork();
	if (child == 0 && child_exits)
		exit(0);
	if (child == 0)
		_exit(0);
	int status = 0;
	if (child < 0 || waitpid(child, &status, 0) != child || status != 0)
		atomic_fetch_add(&failed, 1);
	atomic_fetch_add(&forks, 1);
}

static int fork_in_handler(const char *count, const char *how)
{
	int wanted = atoi(count);
	child_exits = strcmp(how, "exit") == 0;
	if (hold())
		return 1;
	on(SIGALRM, fork_on_timer, SA_RESTART);
	struct itimerval every = {{0, 1000}, {0, 1000}};
	setitimer(ITIMER_REAL, &every, NULL);
	while (atomic_load(&forks) < wanted) {
		void *p;
		if (cudaMalloc(&p, MiB) == cudaSuccess)
			cudaFree(p);
	}
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &off, NULL);
	printf("forks: %d, failed: %d\n", atomic_load(&forks) >= wanted, atomic_load(&failed));
	return 0;
}

/* Runs off the end of its stack (the depth check is never met). */
static volatile long depth_limit = -1;

static int recurse(volatile char *above, long depth)
{
	volatile char frame[512];
	frame[0] = above ? above[0] : 1;
	if (depth == depth_limit)
		return frame[0];
	return recurse(frame, depth + 1) + frame[1];
}

static atomic_int go;

static void *overflowing(void *arg)
{
	(void)arg;
	while (!atomic_load(&go))
		usleep(1000);
	return (void *)(intptr_t)recurse(NULL, 0);
}

static void *hold_on_worker(void *arg)
{
	(void)arg;
	return (void *)(intptr_t)hold();
}

/* The main thread overflows its stack: "main_after_worker", its first CUDA
 * call made on a worker; "main_disabled", after setting an alternate stack
 * of its own and then none. */
static int main_overflow(const char *how)
{
	if (strcmp(how, "main_after_worker") == 0) {
		pthread_t worker;
		void *refused = NULL;
		pthread_create(&worker, NULL, hold_on_worker, NULL);
		pthread_join(worker, &refused);
		if (refused)
			return 1;
	} else {
		stack_t own = {.ss_sp = own_stack, .ss_size = sizeof(own_stack)};
		stack_t none = {.ss_flags = SS_DISABLE};
		if (hold() || sigaltstack(&own, NULL) != 0 || sigaltstack(&none, NULL) != 0)
			return 1;
	}
	return recurse(NULL, 0);
}

/* A worker that never uses CUDA overflows its stack; "early": it was
 * started before CUDA was first used. */
static int worker_overflow(const char *when)
{
	if (strncmp(when, "main_", 5) == 0)
		return main_overflow(when);
	pthread_t thread;
	bool early = strcmp(when, "early") == 0;
	if (early)
		pthread_create(&thread, NULL, overflowing, NULL);
	if (hold())
		return 1;
	if (!early)
		pthread_create(&thread, NULL, overflowing, NULL);
	atomic_store(&go, 1);
	pthread_join(thread, NULL);
	return 2;
}

static void *raise_on_worker(void *arg)
{
	raise((int)(intptr_t)arg);
	return NULL;
}

/* The signal numbered by argv[2]; on a worker thread with "thread"; with
 * "small_stack", on an alternate stack of the program's of 16 KiB. */
static int raise_number(const char *number, const char *thread)
{
	int signal_number = atoi(number);
	static char small[16 * 1024];
	stack_t stack = {.ss_sp = small, .ss_size = sizeof(small)};
	if (strcmp(thread, "small_stack") == 0 && sigaltstack(&stack, NULL) != 0)
		return 1;
	if (hold())
		return 1;
	if (strcmp(thread, "thread") == 0) {
		pthread_t worker;
		pthread_create(&worker, NULL, raise_on_worker, (void *)(intptr_t)signal_number);
		pthread_join(worker, NULL);
	} else {
		raise(signal_number);
	}
	return 2;
}

/* A breakpoint instruction left in the code. */
static int trap(void)
{
	if (hold())
		return 1;
#if defined(__x86_64__) || defined(__i386__)
	__asm__ volatile("int3");
#elif defined(__aarch64__)
	__asm__ volatile("brk #0");
#else
	raise(SIGTRAP);
#endif
	return 2;
}

/* The signals the program ignores or handles stay its own. */
static atomic_int handled;

static void count_handled(int signal_number)
{
	(void)signal_number;
	atomic_fetch_add(&handled, 1);
}

static int kept(void)
{
	signal(SIGUSR1, SIG_IGN);
	signal(SIGHUP, count_handled);
	if (hold())
		return 1;
	raise(SIGUSR1);
	raise(SIGHUP);
	struct sigaction hup, usr1, term;
	sigaction(SIGHUP, NULL, &hup);
	sigaction(SIGUSR1, NULL, &usr1);
	sigaction(SIGTERM, NULL, &term);
	printf("handled %d, SIGHUP %s, SIGUSR1 %s, SIGTERM %s\n", atomic_load(&handled),
	       hup.sa_handler == count_handled ? "the program's" : "changed",
	       usr1.sa_handler == SIG_IGN ? "ignored" : "changed",
	       !(term.sa_flags & SA_SIGINFO) && term.sa_handler == SIG_DFL ? "default" : "changed");
	return 0;
}

/* A crash reporter, installed before CUDA is used: it says its piece,
 * puts back the action it found (the default) and lets the fault happen
 * again, as Python's faulthandler does. */
static struct sigaction found;

static void report_crash(int signal_number)
{
	static const char said[] = "crash reported\n";
	ssize_t ignored = write(STDOUT_FILENO, said, sizeof(said) - 1);
	(void)ignored;
	sigaction(signal_number, &found, NULL);
}

static volatile int *volatile nowhere;

static int crash_reporter(void)
{
	struct sigaction action;
	memset(&action, 0, sizeof(action));
	action.sa_handler = report_crash;
	sigaction(SIGSEGV, &action, &found);
	if (hold())
		return 1;
	*nowhere = 1;
	return 2;
}

/* The program sets its SIGSEGV handler again and again, asking each time
 * what it is, for 1.5 s: through a checkpoint (VRAMTRACE_CHECKPOINT_S=1),
 * written by the tracer's own thread. Then a fault: the handler it set
 * last is the one that runs. */
static void (*volatile expected)(int);

static void ran(void (*handler)(int))
{
	static const char last[] = "the last handler set ran\n", other[] = "another handler ran\n";
	if (handler == expected)
		write(STDOUT_FILENO, last, sizeof(last) - 1);
	else
		write(STDOUT_FILENO, other, sizeof(other) - 1);
	_exit(0);
}

static void first_handler(int signal_number)
{
	(void)signal_number;
	ran(first_handler);
}

static void second_handler(int signal_number)
{
	(void)signal_number;
	ran(second_handler);
}

static int actions_while_reporting(void)
{
	if (hold())
		return 1;
	struct timespec start, now;
	clock_gettime(CLOCK_MONOTONIC, &start);
	long wrong = 0;
	for (unsigned long i = 0;; i++) {
		struct sigaction action, old;
		if (i % 1000 == 0) {
			memset(&action, 0, sizeof(action));
			action.sa_handler = i % 2000 ? second_handler : first_handler;
			expected = action.sa_handler;
			sigaction(SIGSEGV, &action, NULL);
		}
		sigaction(SIGSEGV, NULL, &old);
		wrong += old.sa_handler != expected;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000 >=
		    1500)
			break;
	}
	printf("wrong answers: %ld\n", wrong);
	fflush(stdout);
	*nowhere = 1;
	return 2;
}

/* SIGINT on a worker and SIGTERM on main at the same moment. */
static pthread_barrier_t together;

static void *interrupt_now(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&together);
	raise(SIGINT);
	return NULL;
}

static int two_signals(void)
{
	pthread_t worker;
	if (hold())
		return 1;
	pthread_barrier_init(&together, NULL, 2);
	pthread_create(&worker, NULL, interrupt_now, NULL);
	pthread_barrier_wait(&together);
	raise(SIGTERM);
	pthread_join(worker, NULL);
	return 2;
}

/* abort() with a SIGABRT handler of the program's that returns. */
static void returns(int signal_number)
{
	(void)signal_number;
}

static int abort_handled(void)
{
	signal(SIGABRT, returns);
	if (hold())
		return 1;
	abort();
}

/* The default action put back by glibc's older calls, which reach its
 * internal sigaction, then SIGTERM. */
sighandler_t bsd_signal(int signal_number, sighandler_t handler);

static int default_by(const char *call)
{
	if (hold())
		return 1;
	sighandler_t old = strcmp(call, "sigset") == 0        ? sigset(SIGTERM, SIG_DFL)
			   : strcmp(call, "sysv_signal") == 0 ? sysv_signal(SIGTERM, SIG_DFL)
			   : strcmp(call, "bsd_signal") == 0  ? bsd_signal(SIGTERM, SIG_DFL)
							      : __sysv_signal(SIGTERM, SIG_DFL);
	printf("%s: %s\n", call, old == SIG_DFL ? "was the default" : "was another");
	raise(SIGTERM);
	return 2;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	const char *arg = argc > 2 ? argv[2] : "";
	const char *extra = argc > 3 ? argv[3] : "";
	setvbuf(stdout, NULL, _IONBF, 0);
	if (strcmp(mode, "stacks") == 0)
		return handler_stacks(arg);
	if (strcmp(mode, "nested") == 0)
		return nested_signals();
	if (strcmp(mode, "fork_in_handler") == 0)
		return fork_in_handler(arg, extra);
	if (strcmp(mode, "overflow") == 0)
		return worker_overflow(arg);
	if (strcmp(mode, "raise") == 0)
		return raise_number(arg, extra);
	if (strcmp(mode, "trap") == 0)
		return trap();
	if (strcmp(mode, "kept") == 0)
		return kept();
	if (strcmp(mode, "two_signals") == 0)
		return two_signals();
	if (strcmp(mode, "crash_reporter") == 0)
		return crash_reporter();
	if (strcmp(mode, "abort_handled") == 0)
		return abort_handled();
	if (strcmp(mode, "actions_while_reporting") == 0)
		return actions_while_reporting();
	if (strcmp(mode, "default_by") == 0)
		return default_by(arg);
	if (hold())
		return 1;
	if (strcmp(mode, "quick_exit") == 0)
		quick_exit(atoi(arg));
	if (strcmp(mode, "_Exit") == 0)
		_Exit(atoi(arg));
	if (strcmp(mode, "exit_group") == 0)
		syscall(SYS_exit_group, atoi(arg));
	fprintf(stderr, "signals: unknown mode '%s'\n", mode);
	return 64;
}
