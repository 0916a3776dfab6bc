/* Finding the unwind entry (FDE) that covers a code address in the loaded
 * objects' .eh_frame, through each object's sorted .eh_frame_hdr, and
 * reading DWARF's encodings. Reads only the objects' own mapped data. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

struct vt_cie {
	const uint8_t *instructions, *instructions_end;
	uint64_t code_alignment;
	int64_t data_alignment;
	uint64_t return_register;
	uint8_t pointer_encoding; /* of the FDEs' addresses */
	bool signal_frame;        /* 'S': a signal return trampoline */
	bool augmented;           /* 'z': FDEs carry augmentation data */
};

struct vt_fde {
	struct vt_cie cie;
	uintptr_t start, end; /* the code it covers */
	const uint8_t *instructions, *instructions_end;
};

/* The entry covering pc; false when no object has one. Lock-free where
 * glibc has _dl_find_object (2.35 and later). */
bool vt_unwind_find_fde(uintptr_t pc, struct vt_fde *fde);

/* DWARF's readers: each moves *at past what it read, never past end (what
 * lies beyond reads as 0). */
uint64_t vt_read_uleb(const uint8_t **at, const uint8_t *end);
int64_t vt_read_sleb(const uint8_t **at, const uint8_t *end);
uint64_t vt_read_fixed(const uint8_t **at, const uint8_t *end, unsigned bytes);
/* A pointer in DW_EH_PE encoding; data_base for datarel. */
uintptr_t vt_read_pointer(const uint8_t **at, const uint8_t *end, uint8_t encoding,
			  uintptr_t data_base);
