/* What a program does with its descriptors, limits, threads and exec that a
 * preloaded tracer must leave as they are, chosen by argv[1]. Its files go
 * beside the report (the directory of VRAMTRACE_OUTPUT), so a run with and
 * one without vramtrace can be compared byte for byte. */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vramtrace.h"

#define MiB (1ull << 20)

static const char *in_run_dir(const char *name)
{
	static char path[8][512];
	static unsigned next;
	const char *output = getenv("VRAMTRACE_OUTPUT");
	const char *slash = output ? strrchr(output, '/') : NULL;
	char *out = path[next++ % 8];
	snprintf(out, sizeof(path[0]), "%.*s/%s", slash ? (int)(slash - output) : 1,
		 slash ? output : ".", name);
	return out;
}

static void *allocate(size_t bytes)
{
	void *p = NULL;
	cudaError_t rc = cudaMalloc(&p, bytes);
	if (rc != cudaSuccess)
		printf("cudaMalloc(%zu) = %d\n", bytes, (int)rc);
	return p;
}

static void *allocate_and_free(void *arg)
{
	(void)arg;
	cudaFree(allocate(MiB));
	return NULL;
}

/* The tracer is started, then the program closes every descriptor past
 * standard error (as daemons and close_fds do) and opens its own, which it
 * reads and writes while allocating. */
static int closed_descriptors(void)
{
	void *first = allocate(MiB);
	FILE *input = fopen(in_run_dir("input"), "we");
	for (int i = 0; i < 64; i++)
		fputc('a' + i % 26, input);
	fclose(input);
	for (int fd = 3; fd < 1024; fd++)
		close(fd);
	int in = open(in_run_dir("input"), O_RDONLY);
	int out = open(in_run_dir("output"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
	int log = open(in_run_dir("log"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
	printf("descriptors %d %d %d\n", in, out, log);
	for (int i = 0; i < 32; i++) {
		/* Every other step on a new thread: a stack the tracer's walks
		 * have not seen yet. */
		pthread_t thread;
		if (i % 2 && pthread_create(&thread, NULL, allocate_and_free, NULL) == 0)
			pthread_join(thread, NULL);
		else
			allocate_and_free(NULL);
		char pair[2];
		ssize_t got = read(in, pair, sizeof(pair));
		ssize_t put = got > 0 ? write(out, pair, (size_t)got) : 0;
		ssize_t logged = write(log, "line\n", 5);
		if (got != 2 || put != 2 || logged != 5)
			printf("step %d: read %zd, wrote %zd, logged %zd (%s)\n", i, got, put,
			       logged, strerror(errno));
	}
	cudaFree(first);
	return 0;
}

/* RLIMIT_NOFILE leaves the program two descriptors past standard error,
 * both its own. */
static int few_descriptors(void)
{
	void *first = allocate(MiB);
	for (int fd = 3; fd < 1024; fd++)
		close(fd);
	struct rlimit limit = {5, 5};
	setrlimit(RLIMIT_NOFILE, &limit);
	int a = open(in_run_dir("first"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
	int b = open(in_run_dir("second"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
	printf("opened %d %d (%s)\n", a, b, b < 0 ? strerror(errno) : "ok");
	void *more = allocate(2 * MiB);
	if (b >= 0 && write(b, "second\n", 7) != 7)
		printf("write: %s\n", strerror(errno));
	cudaFree(more);
	cudaFree(first);
	return 0;
}

/* RLIMIT_FSIZE lets the program write its small file, not the report. */
static int small_files(void)
{
	struct rlimit limit = {1000, 1000};
	setrlimit(RLIMIT_FSIZE, &limit);
	void *p = allocate(MiB), *q = allocate(3 * MiB);
	FILE *data = fopen(in_run_dir("data"), "we");
	fprintf(data, "%d bytes of the program's own\n", 32);
	fclose(data);
	cudaFree(q);
	(void)p;
	printf("done\n");
	return 0;
}

/* RLIMIT_FSIZE at 64 KiB: room for the report, none past the end of a
 * longer run list. */
static int list_past_limit(void)
{
	struct rlimit limit = {64 * 1024, 64 * 1024};
	setrlimit(RLIMIT_FSIZE, &limit);
	allocate(MiB);
	printf("done\n");
	return 0;
}

/* As on a file system without hard links (vfat, exFAT, many FUSE mounts):
 * link(2) refused with EPERM, by a seccomp filter. */
static int no_hard_links(void)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_link, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_linkat, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog program = {sizeof(filter) / sizeof(filter[0]), filter};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0)
		return 77;
	allocate(MiB);
	printf("done\n");
	return 0;
}

#define ARG10   "x", "x", "x", "x", "x", "x", "x", "x", "x", "x"
#define ARG100  ARG10, ARG10, ARG10, ARG10, ARG10, ARG10, ARG10, ARG10, ARG10, ARG10
#define ARG1000 ARG100, ARG100, ARG100, ARG100, ARG100, ARG100, ARG100, ARG100, ARG100, ARG100

/* 5,002 arguments through each list form of exec. */
static int many_arguments(const char *self, const char *form)
{
	allocate(MiB);
	char *environment[] = {"LIMITS_FROM=execle", NULL};
	if (strcmp(form, "execl") == 0)
		execl(self, self, "count", ARG1000, ARG1000, ARG1000, ARG1000, ARG1000, "last",
		      (char *)NULL);
	else if (strcmp(form, "execlp") == 0)
		execlp(self, self, "count", ARG1000, ARG1000, ARG1000, ARG1000, ARG1000, "last",
		       (char *)NULL);
	else
		execle(self, self, "count", ARG1000, ARG1000, ARG1000, ARG1000, ARG1000, "last",
		       (char *)NULL, environment);
	printf("%s failed: %s\n", form, strerror(errno));
	return 1;
}

static int count(int argc, char **argv)
{
	const char *from = getenv("LIMITS_FROM");
	printf("%d arguments, the last '%s', from %s\n", argc, argv[argc - 1],
	       from ? from : "a plain exec");
	return 0;
}

/* What the program printed but never flushed is lost at exec, as it would
 * be without vramtrace. */
static int exec_unflushed(const char *self)
{
	allocate(MiB);
	printf("left in the buffer\n");
	execl(self, self, "count", (char *)NULL);
	return 1;
}

/* A search along PATH for this program, past a directory that is missing,
 * one without it, one where its name is a directory and one where it is a
 * file that cannot be run: each refused exec must leave no report, only
 * the one that replaces the process (or, when none does, the exit). */
static void search_path(const char *self, bool found)
{
	mkdir(in_run_dir("empty"), 0700);
	mkdir(in_run_dir("named"), 0700);
	mkdir(in_run_dir("named/limits"), 0700);
	mkdir(in_run_dir("plain"), 0700);
	close(open(in_run_dir("plain/limits"), O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
	const char *slash = strrchr(self, '/');
	char path[4096];
	snprintf(path, sizeof(path), "/nonexistent:%s:%s:%s%s%.*s", in_run_dir("empty"),
		 in_run_dir("named"), in_run_dir("plain"), found ? ":" : "",
		 found ? (int)(slash - self) : 0, self);
	setenv("PATH", path, 1);
}

/* As Python's os.execvp does it: one execve per entry of PATH. */
static void execve_each_entry(char *const argv[])
{
	extern char **environ;
	char *path = strdup(getenv("PATH"));
	for (char *entry = strtok(path, ":"); entry; entry = strtok(NULL, ":")) {
		char candidate[4096];
		snprintf(candidate, sizeof(candidate), "%s/%s", entry, argv[0]);
		execve(candidate, argv, environ);
	}
	free(path);
}

/* execveat, from a descriptor of this program's directory (glibc 2.34 on). */
static int exec_at(const char *self)
{
	extern char **environ;
	allocate(MiB);
	const char *slash = strrchr(self, '/');
	char directory[4096];
	snprintf(directory, sizeof(directory), "%.*s", (int)(slash - self), self);
	int dirfd = open(directory, O_PATH | O_DIRECTORY | O_CLOEXEC);
	char *argv[] = {"limits", "count", NULL};
	execveat(dirfd, slash + 1, argv, environ, 0);
	printf("execveat failed: %s\n", strerror(errno));
	return 1;
}

/* A PATH whose first entry is a loop of symbolic links: glibc's execvp
 * stops there (ELOOP), though the program is in the next entry. */
static void search_path_through_loop(const char *self)
{
	symlink("loop", in_run_dir("loop"));
	const char *slash = strrchr(self, '/');
	char path[4096];
	snprintf(path, sizeof(path), "%s:%.*s", in_run_dir("loop"), (int)(slash - self), self);
	setenv("PATH", path, 1);
}

static int path_search(const char *self, const char *form)
{
	allocate(MiB);
	if (strcmp(form, "execvp_loop") == 0)
		search_path_through_loop(self);
	else
		search_path(self, strcmp(form, "execvp_missing") != 0);
	char *argv[] = {"limits", "count", NULL};
	if (strcmp(form, "each_entry") == 0)
		execve_each_entry(argv);
	else
		execvp("limits", argv);
	printf("%s failed: %s\n", form, strerror(errno));
	return 0;
}

/* fexecve of a script through a close-on-exec descriptor: the kernel
 * refuses it (ENOENT), its interpreter having no name to open it by. */
static int script_closed_on_exec(void)
{
	extern char **environ;
	allocate(MiB);
	int written = open(in_run_dir("script"), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0700);
	if (written < 0 || write(written, "#!/bin/sh\necho ran\n", 20) != 20)
		return 1;
	close(written); /* open for writing, it would be busy (ETXTBSY) */
	int script = open(in_run_dir("script"), O_RDONLY | O_CLOEXEC);
	char *argv[] = {"script", NULL};
	fexecve(script, argv, environ);
	printf("fexecve failed: %s\n", strerror(errno));
	return 0;
}

/* How much of a thread's stack an allocation and a free take: the thread
 * runs on a stack filled with a pattern, and what is left of it untouched
 * is counted from the bottom. Each round's allocation is a new peak, so
 * its free is where the device is read at the peak (NVML). */
enum { MEASURED_STACK = 256 * 1024, PATTERN = 0xa5 };

static void *allocate_on_measured(void *arg)
{
	void *p = NULL;
	cudaMalloc(&p, (size_t)arg);
	cudaFree(p);
	return NULL;
}

static int stack_use(void)
{
	cudaFree(allocate(MiB)); /* the process's first call, on the main thread */
	for (int round = 0; round < 2; round++) {
		unsigned char *stack = aligned_alloc(4096, MEASURED_STACK);
		memset(stack, PATTERN, MEASURED_STACK);
		pthread_attr_t attributes;
		pthread_attr_init(&attributes);
		pthread_attr_setstack(&attributes, stack, MEASURED_STACK);
		pthread_t thread;
		void *bytes = (void *)(uintptr_t)((round + 2) * MiB);
		if (pthread_create(&thread, &attributes, allocate_on_measured, bytes) != 0)
			return 1;
		pthread_join(thread, NULL);
		size_t untouched = 0;
		while (untouched < MEASURED_STACK && stack[untouched] == PATTERN)
			untouched++;
		/* The first round also pays for the thread's first call. */
		fprintf(stderr, "limits: round %d used %zu bytes of stack\n", round,
			MEASURED_STACK - untouched);
		pthread_attr_destroy(&attributes);
		free(stack);
	}
	return 0;
}

/* Threads with small stacks, as a program sizes them: creating one must
 * work as without vramtrace, and allocating on one must not crash. */
static void *small_worker(void *arg)
{
	if (arg)
		cudaFree(allocate(MiB));
	return NULL;
}

static int small_stacks(void)
{
	static const size_t sizes[] = {16 * 1024, 24 * 1024, 32 * 1024};
	cudaFree(allocate(MiB));
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		pthread_attr_t attributes;
		pthread_attr_init(&attributes);
		pthread_attr_setstacksize(&attributes, sizes[i]);
		pthread_t thread;
		/* 16 KiB only made; 24 and 32 KiB allocate too. */
		int rc = pthread_create(&thread, &attributes, small_worker,
					sizes[i] > 16 * 1024 ? (void *)1 : NULL);
		printf("%zu KiB thread: %s\n", sizes[i] / 1024, rc ? strerror(rc) : "ran");
		if (rc == 0)
			pthread_join(thread, NULL);
		pthread_attr_destroy(&attributes);
	}
	return 0;
}

/* The tracer's deep work asked for on a 16 KiB thread, the least glibc
 * gives: the process's first CUDA call, a window's peak named, a dump,
 * then exit() from that thread. */
static void *tiny_worker(void *arg)
{
	(void)arg;
	void *first = allocate(MiB);
	vramtrace_window_begin();
	void *second = allocate(2 * MiB);
	char where[256];
	vramtrace_window_peak(where, sizeof(where));
	vramtrace_dump(in_run_dir("dump.json"));
	cudaFree(second);
	printf("exit from a 16 KiB thread\n");
	(void)first;
	exit(4);
}

static int tiny_thread(void)
{
	pthread_attr_t attributes;
	pthread_attr_init(&attributes);
	pthread_attr_setstacksize(&attributes, 16 * 1024);
	pthread_t thread;
	if (pthread_create(&thread, &attributes, tiny_worker, NULL) != 0)
		return 1;
	pthread_join(thread, NULL);
	return 1;
}

/* ulimit -s 64, as set in the program: its main thread's stack grows no
 * further, and the program's own work fits in it. */
static int low_stack_limit(void)
{
	struct rlimit limit = {64 * 1024, 64 * 1024};
	if (setrlimit(RLIMIT_STACK, &limit) != 0)
		return 1;
	void *p = allocate(8 * MiB);
	printf("allocated under a 64 KiB stack limit\n");
	(void)p;
	return 5;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	if (strcmp(mode, "closed_descriptors") == 0)
		return closed_descriptors();
	if (strcmp(mode, "few_descriptors") == 0)
		return few_descriptors();
	if (strcmp(mode, "small_files") == 0)
		return small_files();
	if (strcmp(mode, "list_past_limit") == 0)
		return list_past_limit();
	if (strcmp(mode, "no_hard_links") == 0)
		return no_hard_links();
	if (strcmp(mode, "many_arguments") == 0 && argc > 2)
		return many_arguments(argv[0], argv[2]);
	if (strcmp(mode, "path_search") == 0 && argc > 2)
		return path_search(argv[0], argv[2]);
	if (strcmp(mode, "execveat") == 0)
		return exec_at(argv[0]);
	if (strcmp(mode, "script_closed_on_exec") == 0)
		return script_closed_on_exec();
	if (strcmp(mode, "count") == 0)
		return count(argc, argv);
	if (strcmp(mode, "stack_use") == 0)
		return stack_use();
	if (strcmp(mode, "small_stacks") == 0)
		return small_stacks();
	if (strcmp(mode, "tiny_thread") == 0)
		return tiny_thread();
	if (strcmp(mode, "low_stack_limit") == 0)
		return low_stack_limit();
	if (strcmp(mode, "exec_unflushed") == 0)
		return exec_unflushed(argv[0]);
	fprintf(stderr, "limits: unknown mode '%s'\n", mode);
	return 2;
}
