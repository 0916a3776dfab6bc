/* How the process ends, for the report's "ended_by". main's return value
 * reaches exit inside libc, where no interposer sees it, so main is wrapped
 * at __libc_start_main; explicit exit() calls are seen directly, and so are
 * the endings that skip the destructors (quick_exit, _Exit, exit_group by
 * syscall()), which write the report before going on. Each thread the
 * program starts gets the tracer's alternate signal stack. Nothing here
 * changes what the program does. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../config.h"
#include "../library/ending.h"
#include "../sources/background.h"
#include "../sources/call.h"
#include "../sources/real.h"
#include "../sources/tracking.h"
#include "signals.h"

typedef int (*main_fn)(int, char **, char **);
typedef int (*start_main_fn)(main_fn, int, char **, void (*)(void), void (*)(void), void (*)(void),
			     void *);
typedef void (*exit_fn)(int);

int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void), void (*fini)(void),
		      void (*rtld_fini)(void), void *stack_end);

static main_fn program_main;

static void *libc_function(const char *name)
{
	static const char *const versions[] = {"GLIBC_2.34", "GLIBC_2.2.5", "GLIBC_2.17"};
	for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
		void *found = dlvsym(RTLD_NEXT, name, versions[i]);
		if (found)
			return found;
	}
	return NULL;
}

static int wrapped_main(int argc, char **argv, char **envp)
{
	int status = program_main(argc, argv, envp);
	vt_library_note_exit(status);
	return status;
}

int __cxa_atexit(void (*function)(void *), void *arg, void *dso_handle);

static void last_exit_handler(void *unused)
{
	(void)unused;
	vt_library_finish_unless_written();
}

VT_EXPORT int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void),
				void (*fini)(void), void (*rtld_fini)(void), void *stack_end)
{
	start_main_fn real = (start_main_fn)libc_function("__libc_start_main");
	program_main = main;
	/* exit() called from a destructor (the program's own, or a library's
	 * that runs before vramtrace's) goes on with the exit handlers still
	 * registered, never with the destructors left: vramtrace's would not
	 * run, and the report would be lost. A handler registered before the
	 * real __libc_start_main registers the destructors' runs after them,
	 * last: there it finds the report written, or writes it. */
	__cxa_atexit(last_exit_handler, NULL, NULL);
	return real(wrapped_main, argc, argv, init, fini, rtld_fini, stack_end);
}

VT_EXPORT void exit(int status)
{
	static _Atomic(exit_fn) real;
	exit_fn fn = atomic_load(&real);
	if (!fn) {
		fn = (exit_fn)libc_function("exit");
		atomic_store(&real, fn);
	}
	vt_library_note_exit(status);
	fn(status);
	__builtin_unreachable();
}

typedef void (*pthread_exit_fn)(void *);

/* main() leaving by pthread_exit: the process lives on while the program's
 * other threads run, and ends with the last of them, which the tracer's
 * own threads must not outlive. */
VT_EXPORT void pthread_exit(void *value)
{
	static _Atomic(pthread_exit_fn) real;
	pthread_exit_fn fn = atomic_load(&real);
	if (!fn) {
		fn = (pthread_exit_fn)libc_function("pthread_exit");
		atomic_store(&real, fn);
	}
	if (gettid() == getpid())
		vt_background_note_main_exited();
	fn(value);
	__builtin_unreachable();
}

/* The endings that run no destructor: the report is written first. */
static void ending_now(int status)
{
	vt_library_note_exit(status);
	vt_library_finish();
}

VT_EXPORT void quick_exit(int status)
{
	static _Atomic(exit_fn) real;
	exit_fn fn = atomic_load(&real);
	if (!fn) {
		fn = (exit_fn)vt_real_next("quick_exit");
		atomic_store(&real, fn);
	}
	ending_now(status);
	if (fn)
		fn(status);
	_exit(status);
}

VT_EXPORT void _Exit(int status)
{
	static _Atomic(exit_fn) real;
	exit_fn fn = atomic_load(&real);
	if (!fn) {
		fn = (exit_fn)vt_real_next("_Exit");
		atomic_store(&real, fn);
	}
	ending_now(status);
	if (fn)
		fn(status);
	_exit(status);
}

typedef void (*abort_fn)(void);

/* abort() raises SIGABRT; should a handler of the program's return, it
 * ends the process past any handler. So with the program's handler in
 * place, the report as it stands is written first (replaced should the
 * handler jump back into the program); with the tracer's, that writes it. */
VT_EXPORT void abort(void)
{
	static _Atomic(abort_fn) real;
	abort_fn fn = atomic_load(&real);
	if (!fn) {
		fn = (abort_fn)vt_real_next("abort");
		atomic_store(&real, fn);
	}
	if (vt_tracking_active() && !vt_signals_tracer_handles(SIGABRT))
		vt_library_emergency(SIGABRT, false);
	if (fn)
		fn();
	raise(SIGABRT);
	_exit(128 + SIGABRT);
}

typedef long (*syscall_fn)(long, ...);

/* Strict seccomp, set by this thread: any call but read, write and exit
 * kills the process, so the tracer makes none on it. */
static _Thread_local bool strict_seccomp;

/* The main thread's own exit (SYS_exit, not exit_group): as after
 * pthread_exit, the process ends with the program's last thread, which the
 * tracer's must not outlive; when it is the last, the process ends now, with
 * its status (exit_group, as the kernel would with the tracer's threads
 * gone), and the report is written first; else it is written when the
 * others have gone (program_gone). */
/* The program's other threads ended after the main thread, none by an
 * exit: no exit handler ran. The process ends with the status of its last
 * thread, which the tracer cannot know (one leaving by its start routine's
 * return is not seen): the report says "exit" alone. */
static void program_gone(void)
{
	vt_library_finish();
}

static void main_thread_exits(syscall_fn real, int status)
{
	vt_background_note_main_exited();
	if (strict_seccomp)
		return;
	if (!vt_background_caller_is_the_last()) {
		/* Left to the tracer's threads, unless the others ended
		 * meanwhile and none of them took it yet: then it is this
		 * thread's, as the last. */
		vt_background_on_program_gone(program_gone);
		if (!vt_background_caller_is_the_last() || !vt_background_take_farewell())
			return;
	}
	ending_now(status);
	real(SYS_exit_group, status);
}

static _Atomic(syscall_fn) real_syscall;

/* Found before the program runs, since a first syscall() may come from a
 * signal handler, where looking it up is not safe. */
__attribute__((constructor)) static void find_syscall(void)
{
	atomic_store(&real_syscall, (syscall_fn)vt_real_next("syscall"));
}

/* Six arguments are passed on whatever the call gave: on the ABIs glibc
 * supports, a variadic callee reads the registers as they are. */
VT_EXPORT long syscall(long number, ...)
{
	va_list list;
	long a[6];
	va_start(list, number);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(list, long);
	va_end(list);
	syscall_fn fn = atomic_load(&real_syscall);
	if (!fn) {
		find_syscall();
		fn = atomic_load(&real_syscall);
	}
	if (number == SYS_exit_group)
		ending_now((int)a[0]);
	else if (number == SYS_exit && gettid() == getpid())
		main_thread_exits(fn, (int)a[0]);
	long result = fn(number, a[0], a[1], a[2], a[3], a[4], a[5]);
	if (number == SYS_seccomp && a[0] == SECCOMP_SET_MODE_STRICT && result == 0)
		strict_seccomp = true;
	return result;
}

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

struct start {
	void *(*routine)(void *);
	void *arg;
};

static void *start_thread(void *arg)
{
	struct start start = *(struct start *)arg;
	free(arg);
	vt_signals_prepare_thread();
	return start.routine(start.arg);
}

/* A stack overflow on any thread, one that never used CUDA too, must find
 * a stack to write the report on. Should no memory be left for the start,
 * the thread starts as it would have, without one. */
VT_EXPORT int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
			     void *(*routine)(void *), void *arg)
{
	static _Atomic(create_fn) real;
	create_fn fn = atomic_load(&real);
	if (!fn) {
		/* Not libc's own by version: a sanitizer's, when there is one. */
		fn = (create_fn)vt_real_next("pthread_create");
		atomic_store(&real, fn);
	}
	struct start *start = malloc(sizeof(*start));
	if (!start)
		return fn(thread, attr, routine, arg);
	*start = (struct start){routine, arg};
	int rc = fn(thread, attr, start_thread, start);
	if (rc != 0)
		free(start);
	return rc;
}
