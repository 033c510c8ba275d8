// Tide's line editor on top of libedit. libedit's set-up and history calls are variadic, which
// Swift cannot call, so this file makes the few calls Tide needs and exposes plain functions.
#ifndef TIDE_EDITLINE_SHIM_H
#define TIDE_EDITLINE_SHIM_H

#include <stdio.h>

/// An editor: a libedit instance with its history.
typedef struct tide_editor tide_editor;

/// What tab completion did.
typedef enum {
    /// Nothing to complete (the terminal bell rings).
    TIDE_COMPLETE_NONE = 0,
    /// `insert` holds text to insert at the cursor.
    TIDE_COMPLETE_INSERT = 1,
    /// The candidates were printed; the line is drawn again below them.
    TIDE_COMPLETE_LISTED = 2,
} tide_completion;

/// Completes the text before the cursor. On TIDE_COMPLETE_INSERT, `*insert` is set to a string
/// made with malloc, which the editor frees.
typedef tide_completion (*tide_complete_fn)(void *context, const char *before_cursor, char **insert);

/// How a read ended.
typedef enum {
    TIDE_READ_LINE = 0,
    /// Ctrl-D on an empty line, or the input closed.
    TIDE_READ_END = 1,
    /// Ctrl-C: the line typed so far is abandoned.
    TIDE_READ_INTERRUPT = 2,
} tide_read_status;

/// Opens an editor on standard input and output (emacs key bindings). Ctrl-C while editing
/// ends the read with TIDE_READ_INTERRUPT instead of raising SIGINT; Tab calls the completion
/// function, once set. Returns NULL if libedit cannot be set up.
tide_editor *tide_editor_open(const char *program);

/// Sets what Tab calls, and the `context` it is given.
void tide_editor_set_completion(tide_editor *editor, void *context, tide_complete_fn complete);

/// Closes the editor and restores the terminal.
void tide_editor_close(tide_editor *editor);

/// Sets the prompt. Bytes between two \001 characters are not printed characters (colour codes).
void tide_editor_set_prompt(tide_editor *editor, const char *prompt);

/// Reads one line, with its newline if it had one (el_gets's buffer). The text is valid until the next read.
const char *tide_editor_read(tide_editor *editor, tide_read_status *status);

/// Adds a line to the history (consecutive duplicates are kept once).
void tide_editor_history_add(tide_editor *editor, const char *line);

/// Reads a history file written by tide_editor_history_save; 0 on success.
int tide_editor_history_load(tide_editor *editor, const char *path);

/// Writes the history to `path` (mode 0600); 0 on success.
int tide_editor_history_save(tide_editor *editor, const char *path);

#endif
