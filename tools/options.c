#define _GNU_SOURCE
#include "options.h"

#include "cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void vt_usage_error(const char *command, const char *format, ...)
{
	char *reason = NULL;
	va_list args;
	va_start(args, format);
	if (vasprintf(&reason, format, args) < 0)
		reason = NULL;
	va_end(args);
	vt_diagnostic("vramtrace %s: %s (see vramtrace %s --help)", command,
		      reason ? reason : "out of memory", command);
	free(reason);
}

void vt_arguments_init(struct vt_arguments *arguments, const char *command,
		       void (*usage)(FILE *out), int argc, char **argv,
		       const struct vt_option *options, size_t option_count)
{
	*arguments = (struct vt_arguments){.command = command,
					   .usage = usage,
					   .argc = argc,
					   .argv = argv,
					   .options = options,
					   .option_count = option_count,
					   .next = 1};
}

/* Edit distance (insertions, deletions, substitutions, swaps of two
 * neighbours), to suggest the option a misspelt name meant. */
static size_t distance(const char *a, size_t la, const char *b, size_t lb)
{
	enum { MAX = 40 };
	if (la >= MAX || lb >= MAX)
		return MAX;
	size_t d[MAX + 1][MAX + 1];
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[la][lb];
}

const char *vt_closest_name(const char *name, size_t length, const char *const *names, size_t count,
			    size_t stride)
{
	const char *best = NULL;
	size_t best_distance = 3;
	for (size_t i = 0; i < count; i++) {
		const char *candidate = *(const char *const *)((const char *)names + i * stride);
		size_t d = distance(name, length, candidate, strlen(candidate));
		if (length >= 2 && strncmp(candidate, name, length) == 0)
			d = 1;
		if (d >= length)
			continue; /* "-x" is not a misspelt --by */
		if (d < best_distance) {
			best = candidate;
			best_distance = d;
		}
	}
	return best;
}

static int unknown(const struct vt_arguments *a, const char *argument, const char *name,
		   size_t length)
{
	const char *guess = length ? vt_closest_name(name, length, &a->options[0].name,
						     a->option_count, sizeof(*a->options))
				   : NULL;
	if (guess)
		vt_usage_error(a->command, "unknown option '%s'; did you mean --%s?", argument,
			       guess);
	else
		vt_usage_error(a->command, "unknown option '%s'", argument);
	return VT_ARGUMENT_ERROR;
}

static int missing_value(const struct vt_arguments *a, const struct vt_option *option)
{
	if (option->short_name && !option->name)
		vt_usage_error(a->command, "-%c needs a value", option->short_name);
	else
		vt_usage_error(a->command, "--%s needs a value%s%s", option->name,
			       option->hint ? ": " : "", option->hint ? option->hint : "");
	return VT_ARGUMENT_ERROR;
}

/* option matched; inline is the text after "=" or a short name, or NULL. */
static int take(struct vt_arguments *a, const struct vt_option *option, const char *inline_value,
		const char **value)
{
	*value = NULL;
	if (option->value == VT_OPTION_FLAG) {
		if (inline_value) {
			vt_usage_error(a->command, "--%s takes no value", option->name);
			return VT_ARGUMENT_ERROR;
		}
		return option->id;
	}
	if (inline_value) {
		*value = inline_value;
		return option->id;
	}
	const char *next = a->next < a->argc ? a->argv[a->next] : NULL;
	if (option->value == VT_OPTION_OPTIONAL) {
		if (next && option->accepts && option->accepts(next)) {
			*value = next;
			a->next++;
		}
		return option->id;
	}
	if (!next)
		return missing_value(a, option);
	*value = next;
	a->next++;
	return option->id;
}

static int long_option(struct vt_arguments *a, const char *argument, const char **value)
{
	const char *name = argument + 2;
	const char *equals = strchr(name, '=');
	size_t length = equals ? (size_t)(equals - name) : strlen(name);
	for (size_t i = 0; i < a->option_count; i++) {
		const struct vt_option *option = &a->options[i];
		if (strlen(option->name) == length && strncmp(option->name, name, length) == 0)
			return take(a, option, equals ? equals + 1 : NULL, value);
	}
	return unknown(a, argument, name, length);
}

static int short_option(struct vt_arguments *a, const char *argument, const char **value)
{
	for (size_t i = 0; i < a->option_count; i++) {
		const struct vt_option *option = &a->options[i];
		if (option->short_name != argument[1])
			continue;
		if (argument[2] && option->value == VT_OPTION_FLAG)
			break;
		return take(a, option, argument[2] ? argument + 2 : NULL, value);
	}
	return unknown(a, argument, argument + 1, strlen(argument + 1));
}

int vt_arguments_next(struct vt_arguments *a, const char **value)
{
	*value = NULL;
	if (a->next >= a->argc)
		return VT_ARGUMENT_END;
	const char *argument = a->argv[a->next++];
	if (!a->options_ended && strcmp(argument, "--") == 0) {
		a->options_ended = true;
		return vt_arguments_next(a, value);
	}
	if (a->options_ended || argument[0] != '-' || !argument[1]) {
		/* A second "-" read an empty standard input: "diff - -" said
		 * "-:1:0: '[' or '{' expected near end of file". */
		if (!a->stop_at_operand && strcmp(argument, "-") == 0 && a->stdin_taken) {
			vt_usage_error(a->command, "standard input (-) is given twice; it can "
						   "be read once");
			return VT_ARGUMENT_ERROR;
		}
		a->stdin_taken = a->stdin_taken || strcmp(argument, "-") == 0;
		if (a->stop_at_operand)
			a->options_ended = true;
		*value = argument;
		return VT_ARGUMENT_OPERAND;
	}
	int id = argument[1] == '-' ? long_option(a, argument, value)
				    : short_option(a, argument, value);
	if (id != VT_OPTION_HELP)
		return id;
	a->usage(stdout);
	return VT_ARGUMENT_HELP;
}

int vt_arguments_exit(int id)
{
	return id == VT_ARGUMENT_HELP ? VT_EXIT_OK : VT_EXIT_BAD_INPUT;
}
