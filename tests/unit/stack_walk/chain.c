/* CHAIN names the entry point: chain.h's chain_o2, chain_o0 or
 * chain_shared, as meson builds it. */
#include "chain.h"

static volatile unsigned sink;

/* Inlined at -O2: its frame is its caller's. */
static inline void touch(unsigned level, chain_bottom bottom)
{
	sink += level;
	if (level == 0)
		bottom();
}

/* A real frame with a frame of locals, so rules differ level to level. */
__attribute__((noinline)) static void level_with_locals(unsigned level, chain_bottom bottom);

__attribute__((noinline)) static void level_plain(unsigned level, chain_bottom bottom)
{
	touch(level, bottom);
	if (level > 0)
		level_with_locals(level - 1, bottom);
	sink++; /* no tail call */
}

__attribute__((noinline)) static void level_with_locals(unsigned level, chain_bottom bottom)
{
	volatile char locals[200];
	locals[level % sizeof(locals)] = (char)level;
	touch(level, bottom);
	if (level > 0)
		level_plain(level - 1, bottom);
	sink += (unsigned)locals[0];
}

void CHAIN(unsigned levels, chain_bottom bottom)
{
	level_plain(levels, bottom);
	sink++;
}
