/* How the process ends, for the report's "ended_by". main's return value
 * reaches exit inside libc, where no interposer sees it, so main is wrapped
 * at __libc_start_main; explicit exit() calls are seen directly. Nothing
 * here changes what the program does. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "../config.h"
#include "../core/sink.h"
#include "../sources/background.h"
#include "../sources/call.h"

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
	vt_sink.note_exit(status);
	return status;
}

VT_EXPORT int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void),
				void (*fini)(void), void (*rtld_fini)(void), void *stack_end)
{
	start_main_fn real = (start_main_fn)libc_function("__libc_start_main");
	program_main = main;
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
	vt_sink.note_exit(status);
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
