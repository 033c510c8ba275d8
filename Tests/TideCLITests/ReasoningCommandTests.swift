import Foundation
import Testing
import TideTestSupport

extension CommandLineTests {
    /// A thinking model's reasoning through the commands (Qwen 3's fixture model, its reply written
    /// token by token by a plugin): `tide serve`'s `reasoning_content` beside `content`, whole and
    /// streamed, as the official `openai` client reads it; `tide run`'s checks on the answer alone.
    @Suite struct ReasoningCommandTests {
        /// The plugin's spec: "Let me see." as reasoning, "Paris." as the answer.
        static func plugin() throws -> String {
            let folder = try ScratchPlugins.folder(["think-then": ScratchPlugins.thinkThen])
            return folder.appendingPathComponent("think-then.lua").path + " think='Let me see.' answer='Paris.' stop='<|im_end|>'"
        }

        static func qwenThree() throws -> ModelFamily {
            try ModelFamily.named("qwen-3")
        }

        static let client = """
            import json, sys, openai
            client = openai.OpenAI(base_url=sys.argv[1], api_key="unused")
            ask = [{"role": "user", "content": "Capital of France?"}]
            whole = client.chat.completions.create(model="m", temperature=0, max_tokens=40, messages=ask)
            reasoning, content = [], []
            for chunk in client.chat.completions.create(model="m", temperature=0, max_tokens=40, messages=ask, stream=True):
                for choice in chunk.choices:
                    if getattr(choice.delta, "reasoning_content", None): reasoning.append(choice.delta.reasoning_content)
                    if choice.delta.content: content.append(choice.delta.content)
            message = whole.choices[0].message
            print(json.dumps({"reasoning": getattr(message, "reasoning_content", None), "content": message.content,
                "streamed_reasoning": "".join(reasoning).strip("\\n"), "streamed_content": "".join(content),
                "finish": whole.choices[0].finish_reason}))
            """

        @Test func serveGivesTheReasoningAsReasoningContent() async throws {
            let server = try await TideServer(["--model", try Self.qwenThree().path, "--plugin", try Self.plugin()])
            let result = try #require(try server.python(Self.client) as? [String: String])
            #expect(result["reasoning"] == "Let me see." && result["content"] == "Paris.", "\(result)")
            #expect(result["streamed_reasoning"] == "Let me see." && result["streamed_content"] == "Paris.", "\(result)")
            #expect(result["finish"] == "stop")
        }

        /// `--remote` against `tide serve`: the server's `reasoning_content` is the reasoning here too.
        @Test func aRemoteModelsReasoningComesApart() async throws {
            let server = try await TideServer(["--model", try Self.qwenThree().path, "--plugin", try Self.plugin()])
            let result = try TideProcess.run(["generate", "--remote", server.url.absoluteString, "--json", "Capital of France?"])
            #expect(result.status == 0, "\(result.stderr)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            #expect(object["reasoning"] as? String == "Let me see." && object["text"] as? String == "Paris.", "\(object)")
        }

        /// A script's checks are the answer's: "see" is only in the reasoning.
        @Test func runChecksTheAnswerAlone() throws {
            let script = "@max-tokens 40\n@plugin \(try Self.plugin())\nuser: Capital of France?\n"
                + "expect: equals \"Paris.\"\nexpect: not contains \"see\"\n"
            let result = try TideProcess.run(["run", "--model", try Self.qwenThree().path, "-"], stdin: script)
            #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
            #expect(result.stdout.contains("2 passed, 0 failed"), "\(result.stdout)")
        }

        /// A transcript records the reasoning before the answer (`reasoning:`), and replaying it
        /// checks both by teacher forcing.
        @Test func aTranscriptKeepsTheReasoningAndReplaysIt() throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tide-reasoning-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("out"), withIntermediateDirectories: true)
            let script = folder.appendingPathComponent("think.tide")
            try ("@model \(try Self.qwenThree().path)\n@temperature 0\n@max-tokens 40\n@plugin \(try Self.plugin())\n"
                + "user: Capital of France?\nexpect: equals \"Paris.\"\n").write(to: script, atomically: true, encoding: .utf8)
            let first = try TideProcess.run(["run", "--out", folder.appendingPathComponent("out").path, script.path])
            #expect(first.status == 0, "\(first.stdout)\n\(first.stderr)")
            let transcript = folder.appendingPathComponent("out/think.tide")
            let written = try String(contentsOf: transcript, encoding: .utf8)
            #expect(written.contains("reasoning: Let me see.\nassistant: Paris.\n@generated stop=\"eos\""), "\(written)")
            let replayed = try TideProcess.run(["run", transcript.path])
            #expect(replayed.status == 0 && replayed.stdout.contains("recorded replies: 1 confirmed by teacher forcing"),
                    "\(replayed.stdout)\n\(replayed.stderr)")
        }
    }
}
