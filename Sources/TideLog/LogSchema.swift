import GRDB

/// The log's tables, built by versioned migrations (docs/logs.md describes them; ``SQLiteFile``
/// runs them):
///
/// - `conversation`: one row per conversation — when it started, the model, where it came from
///   (`generate`, `chat`, `run`, `serve`) and its origin (a script's path, an endpoint);
/// - `message`: its messages in order (role and text, a reply's text as stored after `on_reply`);
/// - `reply`: for each generated reply, the parameters, the plugins, how it ended and its figures;
/// - `message_text`: an FTS5 index of the messages' text, kept by triggers;
/// - `tool_call` (version 2): each reply's tool calls and their results;
/// - `message.reasoning` and `reply.reasoning_tokens` (version 3): a thinking model's reasoning;
/// - `response` (version 4): the responses `tide serve` stores for OpenAI's Responses API.
enum LogSchema {
    /// The migrations in order: version N is reached by running the first N.
    static let migrations: [@Sendable (Database) throws -> Void] = [version1, version2, version3, version4]

    /// Version 4: each stored response of the Responses API, by its id: when it was made, the
    /// conversation a response continuing it reads first (JSON), and the response as sent (JSON).
    private static func version4(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE response (
                id TEXT PRIMARY KEY,
                created TEXT NOT NULL,
                conversation TEXT NOT NULL,
                body TEXT NOT NULL
            );
            """)
    }

    /// Version 3: a thinking model's reasoning, kept apart from the answer in `content` (`NULL`
    /// for none), and the tokens a reply spent on it.
    private static func version3(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE message ADD COLUMN reasoning TEXT;
            ALTER TABLE reply ADD COLUMN reasoning_tokens INTEGER;
            """)
    }

    /// Version 2: the tool calls of each reply (`tool_call`), in order, with the round they were
    /// made in and the text before the round's calls, each call's result and time; `given` for
    /// the rounds written before the reply (a client's, a script's), which it answered; a call
    /// without a result was left to the caller (a server's client).
    private static func version2(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE tool_call (
                message_id INTEGER NOT NULL REFERENCES message (id) ON DELETE CASCADE,
                position INTEGER NOT NULL,
                round INTEGER NOT NULL,
                round_text TEXT NOT NULL,
                given INTEGER NOT NULL,
                call_id TEXT NOT NULL,
                name TEXT NOT NULL,
                arguments TEXT NOT NULL,
                written TEXT,
                result TEXT,
                failed INTEGER NOT NULL,
                seconds REAL,
                PRIMARY KEY (message_id, position)
            );
            """)
    }

    private static func version1(_ db: Database) throws {
            try db.execute(sql: """
                CREATE TABLE conversation (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    started TEXT NOT NULL,
                    model TEXT NOT NULL,
                    source TEXT NOT NULL CHECK (source IN ('generate', 'chat', 'run', 'serve')),
                    origin TEXT
                );
                CREATE INDEX conversation_source_started ON conversation (source, started);
                CREATE TABLE message (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    conversation_id INTEGER NOT NULL REFERENCES conversation (id) ON DELETE CASCADE,
                    position INTEGER NOT NULL,
                    role TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant')),
                    content TEXT NOT NULL,
                    created TEXT NOT NULL,
                    UNIQUE (conversation_id, position)
                );
                CREATE TABLE reply (
                    message_id INTEGER PRIMARY KEY REFERENCES message (id) ON DELETE CASCADE,
                    parameters TEXT NOT NULL,
                    plugins TEXT NOT NULL,
                    stop_reason TEXT,
                    prompt_tokens INTEGER,
                    reused_prompt_tokens INTEGER,
                    generated_tokens INTEGER,
                    time_to_first_token REAL,
                    tokens_per_second REAL,
                    decode_seconds REAL,
                    hook_seconds REAL,
                    rewinds INTEGER NOT NULL DEFAULT 0,
                    interrupted INTEGER NOT NULL DEFAULT 0
                );
                CREATE VIRTUAL TABLE message_text USING fts5 (content, content = 'message', content_rowid = 'id');
                CREATE TRIGGER message_text_insert AFTER INSERT ON message BEGIN
                    INSERT INTO message_text (rowid, content) VALUES (new.id, new.content);
                END;
                CREATE TRIGGER message_text_delete AFTER DELETE ON message BEGIN
                    INSERT INTO message_text (message_text, rowid, content) VALUES ('delete', old.id, old.content);
                END;
                CREATE TRIGGER message_text_update AFTER UPDATE OF content ON message BEGIN
                    INSERT INTO message_text (message_text, rowid, content) VALUES ('delete', old.id, old.content);
                    INSERT INTO message_text (rowid, content) VALUES (new.id, new.content);
                END;
                """)
    }
}
