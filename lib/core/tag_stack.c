#include "tag_stack.h"

#include "tags.h"

struct tag_stack {
	uint32_t depth;
	uint32_t tags[VT_TAG_STACK_DEPTH];
};

static __thread struct tag_stack stacks[VT_TAG_SOURCES] __attribute__((tls_model("initial-exec")));

void vt_tag_push(enum vt_tag_source source, uint32_t tag)
{
	struct tag_stack *stack = &stacks[source];
	if (stack->depth < VT_TAG_STACK_DEPTH)
		stack->tags[stack->depth] = tag;
	stack->depth++;
}

bool vt_tag_pop(enum vt_tag_source source)
{
	struct tag_stack *stack = &stacks[source];
	if (stack->depth == 0)
		return false;
	stack->depth--;
	return true;
}

uint32_t vt_tag_top(enum vt_tag_source source)
{
	const struct tag_stack *stack = &stacks[source];
	if (stack->depth == 0)
		return VT_TAG_UNTAGGED;
	uint32_t top = stack->depth < VT_TAG_STACK_DEPTH ? stack->depth : VT_TAG_STACK_DEPTH;
	return stack->tags[top - 1];
}

uint32_t vt_tag_current(void)
{
	if (stacks[VT_TAG_FROM_API].depth)
		return vt_tag_top(VT_TAG_FROM_API);
	return vt_tag_top(VT_TAG_FROM_NVTX);
}
