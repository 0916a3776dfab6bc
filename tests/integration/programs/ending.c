/* Ends in the way argv[1] names, after holding 64 MiB of device memory:
 * signals with and without the program's own handler, a crash, abort()
 * after an out-of-memory error, exit() from another thread, exec, and
 * SIGKILL or _exit after a checkpoint, the main thread's SYS_exit (its
 * last thread, or before another that ends without an exit), and
 * exit or quick_exit called again from an atexit handler or a destructor. */
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void own_handler(int signal_number)
{
	(void)signal_number;
	exit(5); /* the program ends itself, as it chose */
}

static void *exit_from_thread(void *arg)
{
	(void)arg;
	exit(7);
}

/* Outlives the main thread and ends without an exit. */
static void *outlive_main(void *arg)
{
	(void)arg;
	nanosleep(&(struct timespec){0, 200 * 1000000}, NULL);
	return NULL;
}

/* Set by main for the handlers below: exit called again while exiting. */
static int again;

static void exit_again(void)
{
	exit(again);
}

static void quick_exit_again(void)
{
	quick_exit(again);
}

__attribute__((destructor)) static void destructor_exits(void)
{
	if (again == 12)
		exit(again);
}

static void wait_for_checkpoint(void)
{
	struct timespec pause = {0, 300 * 1000 * 1000}; /* VRAMTRACE_CHECKPOINT_S=1 */
	for (int i = 0; i < 5; i++)
		nanosleep(&pause, NULL);
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "return";
	void *held, *huge;
	if (strcmp(how, "handled") == 0)
		signal(SIGTERM, own_handler);
	if (cudaMalloc(&held, 64 << 20) != cudaSuccess)
		return 1;
	if (strcmp(how, "sigterm") == 0 || strcmp(how, "handled") == 0)
		raise(SIGTERM);
	if (strcmp(how, "sigint") == 0)
		raise(SIGINT);
	if (strcmp(how, "segv") == 0)
		*(volatile int *)(argc - 2 + (char *)0) = 1; /* a write to address 0 */
	if (strcmp(how, "abort") == 0 && cudaMalloc(&huge, 1ull << 50) == cudaErrorMemoryAllocation)
		abort();
	if (strcmp(how, "thread") == 0) {
		pthread_t thread;
		pthread_create(&thread, NULL, exit_from_thread, NULL);
		pthread_join(thread, NULL);
	}
	if (strcmp(how, "exec") == 0)
		execl("/bin/sh", "sh", "-c", "exit 9", (char *)NULL);
	if (strcmp(how, "kill") == 0) {
		wait_for_checkpoint();
		kill(getpid(), SIGKILL);
	}
	if (strcmp(how, "_exit") == 0) {
		wait_for_checkpoint();
		_exit(4);
	}
	if (strcmp(how, "sys_exit") == 0) /* the main thread's own exit, the only one */
		syscall(SYS_exit, 6);
	if (strcmp(how, "sys_exit_before_thread") == 0) {
		pthread_t thread;
		pthread_create(&thread, NULL, outlive_main, NULL);
		syscall(SYS_exit, 8); /* the process ends with the thread's status, 0 */
	}
	if (strcmp(how, "exit_in_atexit") == 0) {
		again = 10;
		atexit(exit_again);
		exit(2);
	}
	if (strcmp(how, "quick_exit_in_atexit") == 0) {
		again = 11;
		atexit(quick_exit_again);
	}
	if (strcmp(how, "exit_in_destructor") == 0)
		again = 12;
	return 3;
}
