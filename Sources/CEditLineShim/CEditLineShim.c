#include "CEditLineShim.h"

#include <stdlib.h>
#include <string.h>
#include <histedit.h>

/// The most lines the history keeps.
enum { HISTORY_SIZE = 1000 };

struct tide_editor {
    EditLine *el;
    History *history;
    char *prompt;
    int interrupted;
    void *context;
    tide_complete_fn complete;
};

static char *prompt_of(EditLine *el) {
    tide_editor *editor = NULL;
    el_get(el, EL_CLIENTDATA, &editor);
    return editor && editor->prompt ? editor->prompt : "";
}

// Bound to Ctrl-C: ends the read, and the read reports an interrupt rather than a line.
static unsigned char interrupt_line(EditLine *el, int ch) {
    (void)ch;
    tide_editor *editor = NULL;
    el_get(el, EL_CLIENTDATA, &editor);
    editor->interrupted = 1;
    return CC_NEWLINE;
}

// Bound to Tab: asks Swift what to do with the text before the cursor.
static unsigned char complete_line(EditLine *el, int ch) {
    (void)ch;
    tide_editor *editor = NULL;
    el_get(el, EL_CLIENTDATA, &editor);
    const LineInfo *line = el_line(el);
    size_t length = (size_t)(line->cursor - line->buffer);
    char *before = malloc(length + 1);
    if (!before) return CC_ERROR;
    memcpy(before, line->buffer, length);
    before[length] = '\0';
    char *insert = NULL;
    tide_completion result = editor->complete ? editor->complete(editor->context, before, &insert) : TIDE_COMPLETE_NONE;
    free(before);
    switch (result) {
    case TIDE_COMPLETE_INSERT: {
        int status = insert && el_insertstr(el, insert) == 0 ? CC_REFRESH : CC_ERROR;
        free(insert);
        return (unsigned char)status;
    }
    case TIDE_COMPLETE_LISTED: return CC_REDISPLAY;
    default: return CC_ERROR;
    }
}

tide_editor *tide_editor_open(const char *program) {
    tide_editor *editor = calloc(1, sizeof *editor);
    if (!editor) return NULL;
    editor->el = el_init(program, stdin, stdout, stderr);
    editor->history = history_init();
    if (!editor->el || !editor->history) {
        tide_editor_close(editor);
        return NULL;
    }
    HistEvent event;
    history(editor->history, &event, H_SETSIZE, HISTORY_SIZE);
    history(editor->history, &event, H_SETUNIQUE, 1);

    el_set(editor->el, EL_CLIENTDATA, editor);
    el_set(editor->el, EL_EDITOR, "emacs");
    el_set(editor->el, EL_SIGNAL, 0);
    el_set(editor->el, EL_HIST, history, editor->history);
    el_set(editor->el, EL_PROMPT_ESC, prompt_of, '\1');
    el_set(editor->el, EL_ADDFN, "tide-interrupt", "Abandon the line", interrupt_line);
    el_set(editor->el, EL_ADDFN, "tide-complete", "Complete a command or plugin name", complete_line);
    el_set(editor->el, EL_BIND, "^C", "tide-interrupt", NULL);
    el_set(editor->el, EL_BIND, "^I", "tide-complete", NULL);
    // While a line is edited, Ctrl-C is a key (bound above), not a signal.
    el_set(editor->el, EL_SETTY, "-d", "-isig", NULL);
    return editor;
}

void tide_editor_set_completion(tide_editor *editor, void *context, tide_complete_fn complete) {
    editor->context = context;
    editor->complete = complete;
}

void tide_editor_close(tide_editor *editor) {
    if (!editor) return;
    if (editor->el) el_end(editor->el);
    if (editor->history) history_end(editor->history);
    free(editor->prompt);
    free(editor);
}

void tide_editor_set_prompt(tide_editor *editor, const char *prompt) {
    free(editor->prompt);
    editor->prompt = strdup(prompt);
}

const char *tide_editor_read(tide_editor *editor, tide_read_status *status) {
    int count = 0;
    editor->interrupted = 0;
    el_resize(editor->el);
    const char *line = el_gets(editor->el, &count);
    if (editor->interrupted) {
        *status = TIDE_READ_INTERRUPT;
        return "";
    }
    if (!line || count <= 0) {
        *status = TIDE_READ_END;
        return "";
    }
    *status = TIDE_READ_LINE;
    return line;
}

void tide_editor_history_add(tide_editor *editor, const char *line) {
    HistEvent event;
    history(editor->history, &event, H_ENTER, line);
}

int tide_editor_history_load(tide_editor *editor, const char *path) {
    HistEvent event;
    return history(editor->history, &event, H_LOAD, path) < 0 ? -1 : 0;
}

int tide_editor_history_save(tide_editor *editor, const char *path) {
    HistEvent event;
    return history(editor->history, &event, H_SAVE, path) < 0 ? -1 : 0;
}
