/* glibc's ways to set and ask a signal's action, chosen by argv[1], before
 * CUDA is first used and after (argv[2] "cuda"), or in a process that never
 * uses it (anything else): what it prints must be the same with and without
 * vramtrace. */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

/* X/Open's name for signal(), which glibc declares only for the older
 * X/Open standards. */
sighandler_t bsd_signal(int signal_number, sighandler_t handler);

static bool uses_cuda;
static void *held;

static int hold(void)
{
	return !uses_cuda || cudaMalloc(&held, 64 << 20) == cudaSuccess ? 0 : 1;
}

static void handler(int signal_number)
{
	(void)signal_number;
}

/* glibc's restorer, as a query of an action it set returns it. */
static void (*restorer)(void);

static void find_restorer(void)
{
	struct sigaction action;
	memset(&action, 0, sizeof(action));
	action.sa_handler = SIG_IGN;
	sigaction(SIGWINCH, &action, NULL);
	sigaction(SIGWINCH, NULL, &action);
	restorer = action.sa_restorer;
	signal(SIGWINCH, SIG_DFL);
}

static const char *named(void (*handler_seen)(int))
{
	return handler_seen == SIG_DFL    ? "SIG_DFL"
	       : handler_seen == SIG_IGN  ? "SIG_IGN"
	       : handler_seen == SIG_ERR  ? "SIG_ERR"
	       : handler_seen == SIG_HOLD ? "SIG_HOLD"
	       : handler_seen == handler  ? "handler"
					  : "another";
}

/* The whole action as a query returns it: handler, flags, the 64
 * signals' mask and the restorer. */
static void show(const char *when, int signal_number)
{
	struct sigaction action;
	memset(&action, 0x5a, sizeof(action));
	if (sigaction(signal_number, NULL, &action) != 0) {
		printf("%s %d: query failed\n", when, signal_number);
		return;
	}
	unsigned long long mask = 0;
	for (int other = 1; other < 65; other++)
		if (sigismember(&action.sa_mask, other) == 1)
			mask |= 1ull << (other - 1);
	printf("%s %d: %s flags %#x mask %#llx restorer %s\n", when, signal_number,
	       named(action.sa_handler), (unsigned)action.sa_flags, mask,
	       action.sa_restorer == restorer ? "glibc's"
	       : action.sa_restorer           ? "another"
					      : "none");
}

static void show_all(const char *when)
{
	for (int signal_number = 1; signal_number < 65; signal_number++)
		show(when, signal_number);
}

/* Every signal asked before and after, and after the program puts the
 * default action back: with its own flags and mask by sigaction, by
 * signal. */
static int queries(void)
{
	struct sigaction fallback;
	memset(&fallback, 0, sizeof(fallback));
	fallback.sa_handler = SIG_DFL;
	fallback.sa_flags = SA_NODEFER;
	sigaddset(&fallback.sa_mask, SIGINT);
	sigaddset(&fallback.sa_mask, SIGKILL);
	sigaction(SIGHUP, &fallback, NULL);
	show_all("before");
	if (hold())
		return 1;
	show_all("after");
	sigaction(SIGQUIT, &fallback, NULL);
	signal(SIGUSR2, SIG_DFL);
	signal(SIGPIPE, handler);
	signal(SIGPIPE, SIG_DFL);
	show_all("set again");
	return 0;
}

/* A timer's signal that siginterrupt made interrupt: the read it lands
 * in fails with EINTR. Restarted instead, the read would wait for ever:
 * after a few ticks the handler writes it a byte. */
static int pipe_ends[2];
static volatile sig_atomic_t ticks;

static void tick(int signal_number)
{
	(void)signal_number;
	if (++ticks == 5 && write(pipe_ends[1], "x", 1) != 1)
		_exit(3);
}

static void restarts(const char *when, int signal_number)
{
	struct sigaction action;
	sigaction(signal_number, NULL, &action);
	printf("%s: %s\n", when, action.sa_flags & SA_RESTART ? "restarted" : "interrupts");
}

static void read_with_timer(void)
{
	struct itimerval every = {{0, 20 * 1000}, {0, 20 * 1000}}, off = {{0, 0}, {0, 0}};
	char byte;
	ticks = 0;
	setitimer(ITIMER_REAL, &every, NULL);
	errno = 0;
	ssize_t got = read(pipe_ends[0], &byte, 1);
	int read_errno = errno;
	setitimer(ITIMER_REAL, &off, NULL);
	printf("read %zd: %s\n", got, strerror(read_errno));
}

static int interrupt(void)
{
	if (hold() || pipe(pipe_ends) != 0)
		return 1;
	siginterrupt(SIGALRM, 1);
	signal(SIGALRM, tick);
	restarts("after siginterrupt 1", SIGALRM);
	read_with_timer();
	siginterrupt(SIGALRM, 0);
	restarts("after siginterrupt 0", SIGALRM);
	signal(SIGALRM, tick);
	restarts("signal again", SIGALRM);
	read_with_timer();
	siginterrupt(SIGTERM, 1);
	signal(SIGTERM, tick);
	restarts("SIGTERM", SIGTERM);
	signal(SIGTERM, SIG_DFL);
	show("SIGTERM default", SIGTERM);
	return 0;
}

/* What signal() refuses, and how. */
static void refused(const char *what, sighandler_t got)
{
	printf("%s: %s, %s\n", what, named(got), strerror(errno));
	errno = 0;
}

static int refusals(void)
{
	if (hold())
		return 1;
	errno = 0;
	refused("SIG_ERR", signal(SIGUSR1, SIG_ERR));
	refused("signal 0", signal(0, handler));
	refused("signal 65", signal(65, handler));
	refused("signal -1", signal(-1, SIG_IGN));
	refused("glibc's own", signal(32, handler));
	refused("SIGKILL", signal(SIGKILL, handler));
	refused("SIGSTOP", signal(SIGSTOP, SIG_IGN));
	refused("SIGUSR1", signal(SIGUSR1, handler));
	refused("SIGUSR1 again", signal(SIGUSR1, SIG_DFL));
	int got = siginterrupt(0, 1);
	printf("siginterrupt 0: %d, %s\n", got, strerror(errno));
	errno = 0;
	got = siginterrupt(65, 0);
	printf("siginterrupt 65: %d, %s\n", got, strerror(errno));
	show("SIGUSR1", SIGUSR1);
	return 0;
}

/* glibc's other ways to set an action, each answer and the action it
 * left. */
static void answer(const char *call, sighandler_t got)
{
	printf("%s: %s, %s\n", call, named(got), strerror(errno));
	errno = 0;
}

static void blocked(const char *when, int signal_number)
{
	sigset_t mask;
	sigprocmask(SIG_BLOCK, NULL, &mask);
	printf("%s: %s\n", when, sigismember(&mask, signal_number) ? "blocked" : "not blocked");
}

static void by_sigset(void)
{
	answer("sigset TERM handler", sigset(SIGTERM, handler));
	show("sigset", SIGTERM);
	answer("sigset TERM SIG_DFL", sigset(SIGTERM, SIG_DFL));
	show("sigset", SIGTERM);
	answer("sigset TERM SIG_HOLD", sigset(SIGTERM, SIG_HOLD));
	answer("sigset TERM SIG_HOLD again", sigset(SIGTERM, SIG_HOLD));
	blocked("held", SIGTERM);
	answer("sigset TERM handler held", sigset(SIGTERM, handler));
	blocked("set", SIGTERM);
	answer("sigset TERM SIG_DFL", sigset(SIGTERM, SIG_DFL));
	answer("sigset 0", sigset(0, handler));
	answer("sigset 65", sigset(65, handler));
	answer("sigset glibc's own", sigset(32, handler));
	answer("sigset KILL", sigset(SIGKILL, handler));
}

static void by_the_others(void)
{
	answer("sysv_signal HUP handler", sysv_signal(SIGHUP, handler));
	show("sysv_signal", SIGHUP);
	answer("sysv_signal HUP SIG_DFL", sysv_signal(SIGHUP, SIG_DFL));
	show("sysv_signal", SIGHUP);
	answer("__sysv_signal QUIT handler", __sysv_signal(SIGQUIT, handler));
	answer("__sysv_signal QUIT SIG_DFL", __sysv_signal(SIGQUIT, SIG_DFL));
	answer("sysv_signal SIG_ERR", sysv_signal(SIGHUP, SIG_ERR));
	answer("sysv_signal 0", sysv_signal(0, handler));
	answer("bsd_signal INT handler", bsd_signal(SIGINT, handler));
	show("bsd_signal", SIGINT);
	answer("bsd_signal INT SIG_DFL", bsd_signal(SIGINT, SIG_DFL));
	answer("bsd_signal SIG_ERR", bsd_signal(SIGINT, SIG_ERR));
	answer("ssignal USR1 handler", ssignal(SIGUSR1, handler));
	answer("ssignal USR1 SIG_DFL", ssignal(SIGUSR1, SIG_DFL));
	printf("sigignore USR2: %d\n", sigignore(SIGUSR2));
	show("sigignore", SIGUSR2);
	printf("sighold ALRM: %d\n", sighold(SIGALRM));
	blocked("sighold", SIGALRM);
	printf("sigrelse ALRM: %d\n", sigrelse(SIGALRM));
	blocked("sigrelse", SIGALRM);
}

static int older_calls(void)
{
	if (hold())
		return 1;
	errno = 0;
	for (int round = 0; round < 2; round++) {
		by_sigset();
		by_the_others();
	}
	int asked[] = {SIGHUP, SIGINT, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGTERM};
	for (size_t i = 0; i < sizeof(asked) / sizeof(asked[0]); i++)
		show("in the end", asked[i]);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	uses_cuda = argc > 2 && strcmp(argv[2], "cuda") == 0;
	setvbuf(stdout, NULL, _IONBF, 0);
	find_restorer();
	if (strcmp(mode, "queries") == 0)
		return queries();
	if (strcmp(mode, "interrupt") == 0)
		return interrupt();
	if (strcmp(mode, "refusals") == 0)
		return refusals();
	if (strcmp(mode, "older_calls") == 0)
		return older_calls();
	fprintf(stderr, "signal_calls: unknown mode '%s'\n", mode);
	return 64;
}
