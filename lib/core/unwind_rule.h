/* How to step from one frame to its caller at one code address, as the
 * code's DWARF call frame information (.eh_frame) says, reduced to what a
 * return-address walk needs on x86_64: where the caller's stack pointer
 * (the CFA) comes from, where the return address and the caller's frame
 * pointer were saved. Anything the reduction cannot hold is "not
 * understood", and the walk stops there. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

enum vt_rule_kind {
	VT_RULE_STEP,   /* the caller's frame is found as below */
	VT_RULE_END,    /* the code says it has no caller (_start, clone) */
	VT_RULE_SIGNAL, /* a signal return trampoline: the interrupted frame
			   is in the kernel's ucontext on the stack */
};

/* The registers a rule reads from. */
enum vt_rule_base {
	VT_BASE_SP, /* the frame's stack pointer */
	VT_BASE_FP, /* the frame's frame pointer (rbp) */
	VT_BASE_CFA,
	VT_BASE_NONE, /* frame pointer: unchanged in the caller */
};

/* Fits one 64-bit word, so a cache slot holds it beside its key. */
struct vt_unwind_rule {
	int32_t cfa_offset;
	int16_t fp_offset;
	int8_t ra_offset;      /* the return address is at CFA + ra_offset */
	uint8_t kind : 2;      /* enum vt_rule_kind */
	uint8_t cfa_base : 1;  /* VT_BASE_SP or VT_BASE_FP */
	uint8_t cfa_deref : 1; /* the CFA is loaded from base + offset */
	uint8_t fp_base : 2;   /* where fp_offset counts from */
};
_Static_assert(sizeof(struct vt_unwind_rule) == 8, "a rule is one word");

/* The rule for code address pc (a return address minus one, or the exact
 * address of an interrupted instruction). False when no loaded object has
 * unwind information for pc, or it says what the reduction cannot hold.
 * Allocates nothing, takes no lock where glibc has _dl_find_object. */
bool vt_unwind_rule_for(uintptr_t pc, struct vt_unwind_rule *rule);
