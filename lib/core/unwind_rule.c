#define _GNU_SOURCE
#include "unwind_rule.h"

#include <dlfcn.h>
#include <link.h>
#include <stddef.h>
#include <string.h>

#include "unwind_table.h"

/* DWARF register numbers on x86_64. */
enum { REG_FP = 6, REG_SP = 7, REG_RA = 16 };

/* What the program says of one register so far. */
enum how { SAME, UNDEFINED, AT_CFA, AT_FP, OTHER };

struct reg_rule {
	enum how how;
	int64_t offset;
};

struct row {
	int cfa_register;
	int64_t cfa_offset;
	bool cfa_deref; /* CFA = *(register + offset) */
	bool cfa_other; /* an expression the reduction cannot hold */
	struct reg_rule fp, ra;
};

enum { SAVED_ROWS = 8 };

struct machine {
	struct row row, initial, saved[SAVED_ROWS];
	unsigned saved_count;
	const struct vt_cie *cie;
	uintptr_t location, target;
	bool failed;
};

static struct reg_rule *rule_of(struct row *row, uint64_t reg)
{
	return reg == REG_FP ? &row->fp : reg == REG_RA ? &row->ra : NULL;
}

static void set_rule(struct machine *m, uint64_t reg, enum how how, int64_t offset)
{
	struct reg_rule *rule = rule_of(&m->row, reg);
	if (rule)
		*rule = (struct reg_rule){how, offset};
	else if (reg == REG_SP && how != SAME)
		m->failed = true; /* the stack pointer is the CFA, always */
}

/* DW_OP_breg6 N (and DW_OP_deref): what GCC writes for functions that
 * realign their stack. Anything else is not understood. */
static bool fp_relative(const uint8_t *expression, uint64_t length, int64_t *offset, bool deref)
{
	const uint8_t *end = expression + length;
	if (length < 2 || expression[0] != 0x76)
		return false;
	const uint8_t *at = expression + 1;
	*offset = vt_read_sleb(&at, end);
	if (deref)
		return at + 1 == end && *at == 0x06;
	return at == end;
}

static void def_cfa_expression(struct machine *m, const uint8_t **at, const uint8_t *end)
{
	uint64_t length = vt_read_uleb(at, end);
	int64_t offset;
	if (length > (uint64_t)(end - *at)) {
		m->failed = true;
		return;
	}
	if (fp_relative(*at, length, &offset, true)) {
		m->row.cfa_register = REG_FP;
		m->row.cfa_offset = offset;
		m->row.cfa_deref = true;
		m->row.cfa_other = false;
	} else {
		m->row.cfa_other = true;
	}
	*at += length;
}

static void register_expression(struct machine *m, const uint8_t **at, const uint8_t *end,
				bool value)
{
	uint64_t reg = vt_read_uleb(at, end);
	uint64_t length = vt_read_uleb(at, end);
	int64_t offset;
	if (length > (uint64_t)(end - *at)) {
		m->failed = true;
		return;
	}
	if (!value && fp_relative(*at, length, &offset, false))
		set_rule(m, reg, AT_FP, offset);
	else
		set_rule(m, reg, OTHER, 0);
	*at += length;
}

static void remember(struct machine *m)
{
	if (m->saved_count == SAVED_ROWS)
		m->failed = true;
	else
		m->saved[m->saved_count++] = m->row;
}

static void restore_state(struct machine *m)
{
	if (m->saved_count == 0) {
		m->failed = true;
		return;
	}
	/* The whole row, the CFA's rule too: compilers save the body's row
	 * before an epilogue and bring it back after. */
	m->row = m->saved[--m->saved_count];
}

static void restore(struct machine *m, uint64_t reg)
{
	struct reg_rule *rule = rule_of(&m->row, reg);
	if (rule)
		*rule = *rule_of(&m->initial, reg);
}

/* Moves the location on; false once it passes the target (the row that
 * holds at the target is then the current one). */
static bool advance(struct machine *m, uint64_t delta)
{
	m->location += delta * m->cie->code_alignment;
	return m->location <= m->target;
}

static void def_cfa(struct machine *m, uint64_t reg, int64_t offset)
{
	m->row.cfa_register = (int)reg;
	m->row.cfa_offset = offset;
	m->row.cfa_deref = false;
	m->row.cfa_other = false;
}

/* One instruction of the extended set (low six bits zero); false to stop. */
static bool extended(struct machine *m, uint8_t op, const uint8_t **at, const uint8_t *end)
{
	const struct vt_cie *cie = m->cie;
	uint64_t reg;
	switch (op) {
	case 0x00: return true; /* nop */
	case 0x01:
		m->location = vt_read_pointer(at, end, cie->pointer_encoding, 0);
		return m->location <= m->target;
	case 0x02: return advance(m, vt_read_fixed(at, end, 1));
	case 0x03: return advance(m, vt_read_fixed(at, end, 2));
	case 0x04: return advance(m, vt_read_fixed(at, end, 4));
	case 0x05:
		reg = vt_read_uleb(at, end);
		set_rule(m, reg, AT_CFA, (int64_t)vt_read_uleb(at, end) * cie->data_alignment);
		return true;
	case 0x06: restore(m, vt_read_uleb(at, end)); return true;
	case 0x07: set_rule(m, vt_read_uleb(at, end), UNDEFINED, 0); return true;
	case 0x08: set_rule(m, vt_read_uleb(at, end), SAME, 0); return true;
	case 0x09:
		reg = vt_read_uleb(at, end);
		vt_read_uleb(at, end);
		set_rule(m, reg, OTHER, 0);
		return true;
	case 0x0a: remember(m); return true;
	case 0x0b: restore_state(m); return true;
	case 0x0c:
		reg = vt_read_uleb(at, end);
		def_cfa(m, reg, (int64_t)vt_read_uleb(at, end));
		return true;
	case 0x0d:
		m->row.cfa_register = (int)vt_read_uleb(at, end);
		m->row.cfa_deref = m->row.cfa_other = false;
		return true;
	case 0x0e: m->row.cfa_offset = (int64_t)vt_read_uleb(at, end); return true;
	case 0x0f: def_cfa_expression(m, at, end); return true;
	case 0x10: register_expression(m, at, end, false); return true;
	case 0x11:
		reg = vt_read_uleb(at, end);
		set_rule(m, reg, AT_CFA, vt_read_sleb(at, end) * cie->data_alignment);
		return true;
	case 0x12:
		reg = vt_read_uleb(at, end);
		def_cfa(m, reg, vt_read_sleb(at, end) * cie->data_alignment);
		return true;
	case 0x13: m->row.cfa_offset = vt_read_sleb(at, end) * cie->data_alignment; return true;
	case 0x14:
	case 0x15:
		reg = vt_read_uleb(at, end);
		if (op == 0x14)
			vt_read_uleb(at, end);
		else
			vt_read_sleb(at, end);
		set_rule(m, reg, OTHER, 0);
		return true;
	case 0x16: register_expression(m, at, end, true); return true;
	case 0x2e: vt_read_uleb(at, end); return true; /* GNU_args_size */
	case 0x2f:
		reg = vt_read_uleb(at, end);
		set_rule(m, reg, AT_CFA, -(int64_t)vt_read_uleb(at, end) * cie->data_alignment);
		return true;
	default: m->failed = true; return false;
	}
}

/* Runs instructions until the location passes the target or they end. */
static void run(struct machine *m, const uint8_t *at, const uint8_t *end)
{
	while (at < end && !m->failed) {
		uint8_t op = *at++;
		uint8_t low = op & 0x3f;
		bool go_on = true;
		switch (op >> 6) {
		case 1: go_on = advance(m, low); break;
		case 2:
			set_rule(m, low, AT_CFA,
				 (int64_t)vt_read_uleb(&at, end) * m->cie->data_alignment);
			break;
		case 3: restore(m, low); break;
		default: go_on = extended(m, op, &at, end); break;
		}
		if (!go_on)
			return;
	}
}

static bool fits(int64_t value, int64_t low, int64_t high)
{
	return value >= low && value <= high;
}

static bool reduce_fp(const struct reg_rule *fp, struct vt_unwind_rule *rule)
{
	switch (fp->how) {
	case SAME: rule->fp_base = VT_BASE_NONE; return true;
	case AT_CFA: rule->fp_base = VT_BASE_CFA; break;
	case AT_FP: rule->fp_base = VT_BASE_FP; break;
	default: return false;
	}
	rule->fp_offset = (int16_t)fp->offset;
	return fits(fp->offset, INT16_MIN, INT16_MAX);
}

static bool reduce(const struct row *row, struct vt_unwind_rule *rule)
{
	*rule = (struct vt_unwind_rule){0};
	if (row->ra.how == UNDEFINED) {
		rule->kind = VT_RULE_END;
		return true;
	}
	if (row->cfa_other || (row->cfa_register != REG_SP && row->cfa_register != REG_FP))
		return false;
	if (row->cfa_deref && row->cfa_register != REG_FP)
		return false;
	if (row->ra.how != AT_CFA || !fits(row->ra.offset, INT8_MIN, INT8_MAX))
		return false;
	if (!fits(row->cfa_offset, INT32_MIN, INT32_MAX))
		return false;
	rule->kind = VT_RULE_STEP;
	rule->cfa_base = row->cfa_register == REG_SP ? VT_BASE_SP : VT_BASE_FP;
	rule->cfa_offset = (int32_t)row->cfa_offset;
	rule->cfa_deref = row->cfa_deref;
	rule->ra_offset = (int8_t)row->ra.offset;
	return reduce_fp(&row->fp, rule);
}

bool vt_unwind_rule_for(uintptr_t pc, struct vt_unwind_rule *rule)
{
	struct vt_fde fde;
	if (!vt_unwind_find_fde(pc, &fde))
		return false;
	if (fde.cie.signal_frame) {
		*rule = (struct vt_unwind_rule){.kind = VT_RULE_SIGNAL};
		return true;
	}
	if (fde.cie.return_register != REG_RA)
		return false;
	/* The CIE's instructions hold from the start: all of them run. */
	struct machine m = {.cie = &fde.cie, .location = 0, .target = UINTPTR_MAX};
	m.row.fp.how = m.row.ra.how = SAME;
	run(&m, fde.cie.instructions, fde.cie.instructions_end);
	m.initial = m.row;
	m.location = fde.start;
	m.target = pc;
	run(&m, fde.instructions, fde.instructions_end);
	return !m.failed && reduce(&m.row, rule);
}
