import Foundation
import Testing
import TideChat

@Suite struct ChatInputTests {
    @Test func eachLineIsAnInput() {
        var input = ChatInput()
        #expect(input.add("Hello") == "Hello")
        #expect(input.add("/stats") == "/stats")
        #expect(!input.isInBlock)
    }

    @Test func aBlockIsOneInputOfSeveralLines() {
        var input = ChatInput()
        #expect(input.add("\"\"\"") == nil)
        #expect(input.isInBlock)
        #expect(input.add("first line") == nil)
        #expect(input.add("") == nil)
        #expect(input.add("  third, \"\"\" inside") == nil)
        #expect(input.add(" \"\"\" ") == "first line\n\n  third, \"\"\" inside")
        #expect(!input.isInBlock)
    }

    @Test func anUnfinishedBlockIsKeptAtTheEndAndDroppedOnInterrupt() {
        var input = ChatInput()
        _ = input.add("\"\"\"")
        _ = input.add("never closed")
        #expect(input.finish() == "never closed")
        _ = input.add("\"\"\"")
        _ = input.add("abandoned")
        input.abandon()
        #expect(!input.isInBlock)
        #expect(input.finish() == nil)
        #expect(input.add("next") == "next")
    }
}

@Suite struct SlashCommandTests {
    @Test(arguments: [
        ("/help", SlashCommand.help),
        ("/system Be brief.", .system("Be brief.")),
        ("/system", .system(nil)),
        ("/system \"\"", .system("")),
        ("/set temperature 0.2", .set(name: "temperature", value: "0.2")),
        ("/set top_k 5", .set(name: "top-k", value: "5")),
        ("/set stop \"a b\" c", .set(name: "stop", value: "\"a b\" c")),
        ("/set", .set(name: nil, value: "")),
        ("/load word-budget words=8", .load("word-budget words=8")),
        ("/unload persona", .unload("persona")),
        ("/reload", .reload(nil)),
        ("/reload persona", .reload("persona")),
        ("  /retry  ", .retry),
        ("/save chat.tide", .save("chat.tide")),
        ("/open ~/chats/a.tide", .open("~/chats/a.tide")),
        ("/history", .history(10)),
        ("/history 3", .history(3)),
        ("/model gemma-3-270m", .model("gemma-3-270m")),
        ("/trace", .trace(nil)),
        ("/trace on", .trace(.on(nil))),
        ("/trace on out/chat trace.jsonl", .trace(.on("out/chat trace.jsonl"))),
        ("/trace off", .trace(.off)),
        ("/exit", .quit),
    ])
    func commandsAreRead(line: String, command: SlashCommand) throws {
        #expect(try SlashCommand(parsing: line) == command)
    }

    @Test(arguments: [
        ("/frobnicate", "unknown command /frobnicate; /help lists the commands"),
        ("/sav x", "unknown command /sav (did you mean /save?); /help lists the commands"),
        ("/load", "usage: /load NAME [key=value …]"),
        ("/save", "usage: /save FILE"),
        ("/undo now", "usage: /undo (it takes no arguments)"),
        ("/history many", "usage: /history [N], N a number above 0"),
        ("/trace maybe", "usage: /trace [on [FILE]|off]"),
        ("/trace off now", "usage: /trace [on [FILE]|off]"),
    ])
    func mistakesSayWhatIsExpected(line: String, message: String) {
        #expect(throws: SlashCommandError.self) { try SlashCommand(parsing: line) }
        do {
            _ = try SlashCommand(parsing: line)
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func helpListsEveryCommand() {
        #expect(SlashCommand.names == ["help", "system", "set", "show", "plugins", "tools", "load", "unload", "reload", "retry",
                                       "undo", "reset", "stats", "trace", "save", "open", "history", "model", "quit"])
    }
}

@Suite struct TabCompletionTests {
    let vocabulary = TabCompletion.Vocabulary(availablePlugins: ["persona", "stop-after-sentences", "stop-on-pattern"],
                                              loadedPlugins: ["persona"], models: ["gemma-3-270m", "smollm2-135m-instruct"])

    @Test func completesCommandNames() {
        #expect(TabCompletion(before: "/he", vocabulary: vocabulary) == TabCompletion(insert: "lp ", candidates: []))
        #expect(TabCompletion(before: "/s", vocabulary: vocabulary)
            == TabCompletion(insert: "", candidates: ["/save", "/set", "/show", "/stats", "/system"]))
        #expect(TabCompletion(before: "/re", vocabulary: vocabulary)
            == TabCompletion(insert: "", candidates: ["/reload", "/reset", "/retry"]))
        #expect(TabCompletion(before: "/zz", vocabulary: vocabulary) == nil)
        #expect(TabCompletion(before: "hello", vocabulary: vocabulary) == nil)
    }

    @Test func completesArguments() {
        #expect(TabCompletion(before: "/load stop", vocabulary: vocabulary) == TabCompletion(insert: "-", candidates: []))
        #expect(TabCompletion(before: "/load stop-", vocabulary: vocabulary)
            == TabCompletion(insert: "", candidates: ["stop-after-sentences", "stop-on-pattern"]))
        #expect(TabCompletion(before: "/unload p", vocabulary: vocabulary) == TabCompletion(insert: "ersona ", candidates: []))
        #expect(TabCompletion(before: "/set max", vocabulary: vocabulary) == TabCompletion(insert: "-to", candidates: []))
        #expect(TabCompletion(before: "/set max-tok", vocabulary: vocabulary) == TabCompletion(insert: "ens ", candidates: []))
        #expect(TabCompletion(before: "/model g", vocabulary: vocabulary) == TabCompletion(insert: "emma-3-270m ", candidates: []))
        #expect(TabCompletion(before: "/set temperature 0", vocabulary: vocabulary) == nil)
        #expect(TabCompletion(before: "/trace o", vocabulary: vocabulary) == TabCompletion(insert: "", candidates: ["off", "on"]))
        #expect(TabCompletion(before: "/trace of", vocabulary: vocabulary) == TabCompletion(insert: "f ", candidates: []))
        #expect(TabCompletion(before: "/trace off x", vocabulary: vocabulary) == nil)
    }

    @Test func completesPaths() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tide-tab-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("chats"), withIntermediateDirectories: true)
        try Data().write(to: folder.appendingPathComponent("chat-one.tide"))
        let prefix = folder.path + "/ch"
        #expect(TabCompletion(before: "/open " + prefix, vocabulary: vocabulary) == TabCompletion(insert: "at", candidates: []))
        #expect(TabCompletion(before: "/save " + prefix + "at", vocabulary: vocabulary)
            == TabCompletion(insert: "", candidates: [folder.path + "/chat-one.tide", folder.path + "/chats/"]))
        #expect(TabCompletion(before: "/open " + prefix + "ats", vocabulary: vocabulary) == TabCompletion(insert: "/", candidates: []))
        #expect(TabCompletion(before: "/open " + prefix + "at-", vocabulary: vocabulary) == TabCompletion(insert: "one.tide", candidates: []))
        // The files of /set json-schema and /set grammar; other parameters take no path.
        #expect(TabCompletion(before: "/set json-schema " + prefix + "at-", vocabulary: vocabulary)
            == TabCompletion(insert: "one.tide", candidates: []))
        #expect(TabCompletion(before: "/set grammar " + prefix + "at-", vocabulary: vocabulary)
            == TabCompletion(insert: "one.tide", candidates: []))
        #expect(TabCompletion(before: "/set stop " + prefix + "at-", vocabulary: vocabulary) == nil)
        #expect(TabCompletion(before: "/set json", vocabulary: vocabulary) == TabCompletion(insert: "-schema ", candidates: []))
    }
}
