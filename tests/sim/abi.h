/* What tests/sim/abi.py's generated files need. They declare every symbol
 * of the real libraries as int f(void) and must never see cuda.h, whose
 * prototypes (and renaming macros) would clash. */
#pragma once

/* A stand-in for a symbol the simulation does not define itself: weak, so
 * that a definition in the simulation's own files wins at link time. */
#define SIM_ABI_STUB __attribute__((weak, visibility("default")))

/* A weak symbol that jumps to its twin with every argument as it came. */
#if defined(__x86_64__)
#define SIM_ABI_JUMP(target) "jmp " #target "@PLT"
#elif defined(__aarch64__)
#define SIM_ABI_JUMP(target) "b " #target
#endif
#define SIM_ABI_FORWARD(name, target)                                        \
	__asm__(".text\n.weak " #name "\n.type " #name ", @function\n" #name \
		":\n\t" SIM_ABI_JUMP(target) "\n.size " #name ", . - " #name "\n");

/* One ABI of a driver function, as cuGetProcAddress serves it: the base
 * name it is asked for, the first CUDA version with this ABI, and whether it
 * is the per-thread-default-stream flavour. Sorted by name, then version. */
struct sim_entry_point {
	const char *name;
	int version;
	int per_thread;
	void (*function)(void);
};

extern const struct sim_entry_point sim_entry_points[];
extern const unsigned sim_entry_point_count;

/* A call the simulation does not support: says so once per name on stderr
 * when VRAMSIM_VERBOSE is set, and returns code (the runtime's also
 * becomes the thread's last error). */
int sim_driver_unsupported(const char *name, int *said, int code);
/* Each name the first time it is called, and the list, at exit. */
void sim_unsupported_note(const char *name);
void sim_unsupported_list(const char *library);
int sim_runtime_unsupported(const char *name, int *said, int code);

/* An error code's name and text, as NVIDIA's libraries give them. */
struct sim_error {
	int code;
	const char *name;
	const char *text;
};

extern const struct sim_error sim_runtime_errors[], sim_driver_errors[];
extern const unsigned sim_runtime_error_count, sim_driver_error_count;
