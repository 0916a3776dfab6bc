/* One option parser for every subcommand: a table of descriptors, values
 * given as "--name VALUE" or "--name=VALUE" ("-o VALUE", "-oVALUE"), "--"
 * ending the options, and one short error line (with a did-you-mean for a
 * misspelt name) that points at --help rather than printing it. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum vt_option_value {
	VT_OPTION_FLAG,     /* takes no value */
	VT_OPTION_VALUE,    /* takes one, always */
	VT_OPTION_OPTIONAL, /* "=VALUE", or the next argument when accepts() says so */
};

struct vt_option {
	const char *name; /* the long name, without "--" */
	char short_name;  /* 0 for none */
	enum vt_option_value value;
	int id;
	const char *hint; /* the value, for a missing one: "FORMAT (text or json)" */
	bool (*accepts)(const char *next); /* VT_OPTION_OPTIONAL only */
};

/* Ids below VT_ARGUMENT_OPERAND end the command: vt_arguments_exit gives
 * its status. */
enum {
	VT_ARGUMENT_END = -1,
	VT_ARGUMENT_OPERAND = -2,
	VT_ARGUMENT_ERROR = -3, /* the error is printed */
	VT_ARGUMENT_HELP = -4,  /* --help: the usage is printed on stdout */
};

/* The option id that asks for the usage. */
#define VT_OPTION_HELP 'h'

struct vt_arguments {
	const char *command;
	void (*usage)(FILE *out);
	int argc;
	char **argv;
	const struct vt_option *options;
	size_t option_count;
	bool stop_at_operand; /* the first operand and all after it are operands */
	int next;             /* index of the next argument */
	bool options_ended;   /* after "--" */
	bool stdin_taken;     /* an operand "-" was given */
};

void vt_arguments_init(struct vt_arguments *arguments, const char *command,
		       void (*usage)(FILE *out), int argc, char **argv,
		       const struct vt_option *options, size_t option_count);
/* The next option's id (with *value its value, or NULL), VT_ARGUMENT_OPERAND
 * (with *value the operand), VT_ARGUMENT_END, VT_ARGUMENT_ERROR once the
 * error is printed, or VT_ARGUMENT_HELP once the usage is. */
int vt_arguments_next(struct vt_arguments *arguments, const char **value);
/* The exit status of an id below VT_ARGUMENT_OPERAND: 0 after --help, 2
 * after an error. */
int vt_arguments_exit(int id);

/* The name among count (each the first field of a stride-byte element)
 * that name[0..length) is closest to: within two edits, or one it begins;
 * NULL when none is. */
const char *vt_closest_name(const char *name, size_t length, const char *const *names, size_t count,
			    size_t stride);

/* "vramtrace CMD: MESSAGE (see vramtrace CMD --help)" on stderr. */
void vt_usage_error(const char *command, const char *format, ...)
	__attribute__((format(printf, 2, 3)));
