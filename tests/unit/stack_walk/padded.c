/* One call chain compiled with two frame sizes (PAD): the same code
 * layout with other unwind rules at the same offsets, for what a walk
 * must not serve after one is unloaded and the other loaded in its place. */
typedef void (*chain_bottom)(void);

static volatile unsigned sink;

__attribute__((noinline)) static void padded_level(unsigned level, chain_bottom bottom)
{
	volatile char pad[PAD];
	pad[level % PAD] = (char)level;
	if (level == 0)
		bottom();
	else
		padded_level(level - 1, bottom);
	sink += (unsigned)pad[0];
}

void padded_chain(unsigned levels, chain_bottom bottom);
void padded_chain(unsigned levels, chain_bottom bottom)
{
	padded_level(levels, bottom);
	sink++;
}
