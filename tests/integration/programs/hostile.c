/* What servers, daemons and runtimes do that a preloaded tracer must
 * survive, chosen by argv[1]. Each mode holds device memory first. */
#define _GNU_SOURCE
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MiB (1ull << 20)

static void pause_ms(long ms)
{
	struct timespec pause = {ms / 1000, (ms % 1000) * 1000000};
	while (nanosleep(&pause, &pause) != 0)
		;
}

/* main() leaves by pthread_exit while a worker still runs. */
static void *late_worker(void *arg)
{
	(void)arg;
	pause_ms(200);
	void *more;
	cudaMalloc(&more, 32 * MiB);
	return NULL;
}

static int main_exits_early(void)
{
	pthread_t worker;
	pthread_create(&worker, NULL, late_worker, NULL);
	pthread_exit(NULL);
}

/* The same from inside a chroot without /proc, where no thread count can
 * be read: 77 where no chroot may be made (neither root nor a user
 * namespace). The report goes to /tmp inside it. */
static int main_exits_chrooted(void)
{
	if (geteuid() != 0 && unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
		return 77;
	void *p;
	cudaMalloc(&p, 64 * MiB);
	/* pthread_exit unwinds with libgcc_s, which glibc loads on demand. */
	dlopen("libgcc_s.so.1", RTLD_NOW);
	setenv("TMPDIR", "/tmp", 1);
	if (mkdir("jail", 0755) != 0 || mkdir("jail/tmp", 01777) != 0 || chroot("jail") != 0 ||
	    chdir("/") != 0)
		return 77;
	return main_exits_early();
}

/* A SIGTERM handler calls exit() at a random moment of an allocation loop. */
static void exit_on_term(int signal_number)
{
	(void)signal_number;
	exit(3);
}

static void *terminator(void *arg)
{
	pthread_t target = *(pthread_t *)arg;
	struct timespec pause = {0, (long)(rand() % 3000) * 1000};
	pause_ms(20); /* past the first allocation's start-up */
	nanosleep(&pause, NULL);
	pthread_kill(target, SIGTERM);
	return NULL;
}

static _Noreturn void exit_in_handler(const char *seed)
{
	signal(SIGTERM, exit_on_term);
	srand((unsigned)atoi(seed));
	pthread_t self = pthread_self(), thread;
	void *first;
	cudaMalloc(&first, 64 * MiB);
	pthread_create(&thread, NULL, terminator, &self);
	for (;;) {
		void *p;
		if (cudaMalloc(&p, MiB) == cudaSuccess)
			cudaFree(p);
	}
}

/* A thread waits on stdin (a pipe nobody writes to), holding its lock,
 * while main returns. */
static void *read_a_line(void *arg)
{
	(void)arg;
	char line[64];
	fgets(line, sizeof(line), stdin);
	return NULL;
}

static int reader_at_exit(void)
{
	int fds[2];
	if (pipe(fds) != 0 || dup2(fds[0], STDIN_FILENO) != STDIN_FILENO)
		return 1;
	void *p;
	cudaMalloc(&p, 64 * MiB);
	pthread_t reader;
	pthread_create(&reader, NULL, read_a_line, NULL);
	pause_ms(50);
	printf("leaving\n");
	return 0;
}

/* Fills standard error, a pipe whose reader reads only once the program
 * has ended, to the last byte it holds. */
static int fill_stderr(void)
{
	void *p;
	cudaMalloc(&p, 64 * MiB);
	static char text[64 * 1024];
	memset(text, 'x', sizeof(text));
	for (size_t done = 0; done < sizeof(text);) {
		ssize_t wrote = write(STDERR_FILENO, text + done, sizeof(text) - done);
		if (wrote <= 0)
			return 1;
		done += (size_t)wrote;
	}
	return 0;
}

/* A daemon closes 0-2, then opens its data file: it must get fd 0, and
 * nothing but its own data may land there. */
static int closed_stdio(const char *path)
{
	void *p;
	close(0);
	close(1);
	close(2);
	if (cudaMalloc(&p, 64 * MiB) != cudaSuccess)
		return 1;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	char line[32];
	int length = snprintf(line, sizeof(line), "data on fd %d\n", fd);
	return write(fd, line, (size_t)length) == length ? 0 : 2;
}

/* vramtrace_dump(NULL) mid-run, then the exit report. */
static int dump_without_path(void)
{
	int (*dump)(const char *) = (int (*)(const char *))dlsym(RTLD_DEFAULT, "vramtrace_dump");
	void *p, *q;
	cudaMalloc(&p, 64 * MiB);
	if (!dump || dump(NULL) != 0)
		return 1;
	cudaMalloc(&q, 32 * MiB);
	return 0;
}

/* A runtime that recovers from SIGSEGV, as the JVM does, then aborts. */
static sigjmp_buf recovery;

static void recover(int signal_number)
{
	(void)signal_number;
	siglongjmp(recovery, 1);
}

static volatile int *volatile nowhere;

static int recovered_segv(void)
{
	void *a, *b;
	signal(SIGSEGV, recover);
	cudaMalloc(&a, 1024 * MiB);
	if (sigsetjmp(recovery, 1) == 0)
		*nowhere = 1;
	cudaMalloc(&b, 2048 * MiB);
	abort();
}

/* A fault inside a CUDA call, on a pointer the program passed, recovered
 * as the JVM recovers one: the thread goes on allocating. */
static int fault_in_call(void)
{
	void *managed, *device, **read_only;
	signal(SIGSEGV, recover);
	cudaFree(0);
	read_only = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (sigsetjmp(recovery, 1) == 0) {
		cudaMalloc(read_only, MiB);
		return 1;
	}
	printf("recovered\n");
	if (cudaMallocManaged(&managed, 32 * MiB, cudaMemAttachGlobal) != cudaSuccess ||
	    cudaMalloc(&device, 64 * MiB) != cudaSuccess)
		return 2;
	return 0;
}

/* Ends by the signal named: its default action. */
static int raise_named(const char *name)
{
	static const struct {
		const char *name;
		int number;
	} signals[] = {{"SIGQUIT", SIGQUIT}, {"SIGPIPE", SIGPIPE},     {"SIGALRM", SIGALRM},
		       {"SIGUSR1", SIGUSR1}, {"SIGUSR2", SIGUSR2},     {"SIGXCPU", SIGXCPU},
		       {"SIGXFSZ", SIGXFSZ}, {"SIGVTALRM", SIGVTALRM}, {"SIGPROF", SIGPROF},
		       {"SIGTERM", SIGTERM}, {"SIGHUP", SIGHUP},       {"SIGINT", SIGINT}};
	void *p;
	cudaMalloc(&p, 64 * MiB);
	for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
		if (strcmp(signals[i].name, name) == 0)
			raise(signals[i].number);
	return 1;
}

/* Another library that exports the driver's cuMemAlloc_v2 (shim.c): each
 * lookup must reach the library asked. Exit status: which call went
 * wrong. */
typedef CUresult (*alloc_fn)(CUdeviceptr *, size_t);

static int shim_call(const char *shim_path)
{
	void *shim = dlopen(shim_path, RTLD_NOW | RTLD_LOCAL);
	alloc_fn shim_alloc = shim ? (alloc_fn)dlsym(shim, "cuMemAlloc_v2") : NULL;
	CUdeviceptr ignored;
	return shim_alloc && shim_alloc(&ignored, MiB) == CUDA_ERROR_UNKNOWN ? 0 : 10;
}

static int two_libraries(const char *order, const char *shim_path)
{
	void *p;
	if (strcmp(order, "shim-first") == 0 && shim_call(shim_path) != 0)
		return 10;
	if (cudaMalloc(&p, 64 * MiB) != cudaSuccess)
		return 11;
	return shim_call(shim_path);
}

/* A thread whose cancellation is pending makes its first CUDA call: the
 * call returns (no cancellation point is reached inside it), and the
 * thread ends at its next cancellation point. */
static void *cancelled_caller(void *arg)
{
	(void)arg;
	void *p;
	pthread_cancel(pthread_self());
	cudaError_t rc = cudaMalloc(&p, 64 * MiB);
	printf("returned %d\n", (int)rc);
	fflush(stdout);
	pthread_testcancel();
	return NULL;
}

static int cancel_first_call(void)
{
	pthread_t thread;
	void *result, *p;
	pthread_create(&thread, NULL, cancelled_caller, NULL);
	pthread_join(thread, &result);
	printf("cancelled %d\n", result == PTHREAD_CANCELED);
	return cudaMalloc(&p, 16 * MiB) == cudaSuccess ? 0 : 10;
}

/* Should the process outlive its main thread, it is killed after 20 s. */
static void watchdog(void)
{
	pid_t parent = getpid();
	if (fork() != 0)
		return;
	int null = open("/dev/null", O_RDWR);
	dup2(null, STDOUT_FILENO);
	dup2(null, STDERR_FILENO);
	for (int i = 0; i < 200 && getppid() == parent; i++)
		pause_ms(100);
	if (getppid() == parent)
		kill(parent, SIGKILL);
	_exit(0);
}

/* exit() from a thread whose cancellation is pending: exit is no
 * cancellation point, and the process ends with its status. */
static _Noreturn void cancel_then_exit(void)
{
	void *p;
	watchdog();
	cudaMalloc(&p, 64 * MiB);
	pthread_cancel(pthread_self());
	exit(9);
}

/* The program's umask leaves nothing: the report and the control
 * directory are still their owner's to use. */
static int no_permissions(void)
{
	void *p;
	umask(0777);
	return cudaMalloc(&p, 64 * MiB) == cudaSuccess ? 0 : 10;
}

/* An exec that fails leaves the process as it was: it returns -1, and the
 * process goes on (for half a second here). The file is one the process
 * may run, so the report before the exec is written, but it is empty:
 * the kernel finds no program in it (ENOEXEC). */
static int failed_exec(void)
{
	void *p;
	cudaMalloc(&p, 64 * MiB);
	const char *output = getenv("VRAMTRACE_OUTPUT");
	const char *slash = output ? strrchr(output, '/') : NULL;
	char path[512];
	snprintf(path, sizeof(path), "%.*s/not_a_program", slash ? (int)(slash - output) : 1,
		 slash ? output : ".");
	close(open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0700));
	int rc = execl(path, "not_a_program", (char *)NULL);
	printf("exec %d %s\n", rc, errno == ENOEXEC ? "ENOEXEC" : "other");
	fflush(stdout);
	pause_ms(500);
	return cudaMalloc(&p, 16 * MiB) == cudaSuccess ? 0 : 10;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	const char *arg = argc > 2 ? argv[2] : "";
	if (strcmp(mode, "pthread_exit") == 0) {
		void *p;
		cudaMalloc(&p, 64 * MiB);
		return main_exits_early();
	}
	if (strcmp(mode, "pthread_exit_chrooted") == 0)
		return main_exits_chrooted();
	if (strcmp(mode, "wait") == 0) {
		void *p;
		cudaMalloc(&p, 64 * MiB);
		for (;;)
			pause();
	}
	if (strcmp(mode, "exit_in_handler") == 0)
		exit_in_handler(arg);
	if (strcmp(mode, "closed_stdio") == 0)
		return closed_stdio(arg);
	if (strcmp(mode, "reader_at_exit") == 0)
		return reader_at_exit();
	if (strcmp(mode, "fill_stderr") == 0)
		return fill_stderr();
	if (strcmp(mode, "dump_null") == 0)
		return dump_without_path();
	if (strcmp(mode, "recovered_segv") == 0)
		return recovered_segv();
	if (strcmp(mode, "fault_in_call") == 0)
		return fault_in_call();
	if (strcmp(mode, "raise") == 0)
		return raise_named(arg);
	if (strcmp(mode, "cancel_first_call") == 0)
		return cancel_first_call();
	if (strcmp(mode, "cancel_then_exit") == 0)
		cancel_then_exit();
	if (strcmp(mode, "failed_exec") == 0)
		return failed_exec();
	if (strcmp(mode, "umask") == 0)
		return no_permissions();
	if (strcmp(mode, "shim-first") == 0 || strcmp(mode, "shim-last") == 0)
		return two_libraries(mode, arg);
	fprintf(stderr, "hostile: unknown mode '%s'\n", mode);
	return 64;
}
