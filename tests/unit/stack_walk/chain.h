/* Call chains for the stack walk's tests, built several ways (chain.c at
 * -O2 and -O0, in a shared library): each calls bottom() at the end of a
 * chain of `levels` real frames, with inlined helpers on the way. */
#pragma once

typedef void (*chain_bottom)(void);

void chain_o2(unsigned levels, chain_bottom bottom);
void chain_o0(unsigned levels, chain_bottom bottom);
void chain_shared(unsigned levels, chain_bottom bottom);
