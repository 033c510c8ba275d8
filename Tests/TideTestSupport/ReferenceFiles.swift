import Foundation
import TideModels

/// llama.cpp's reference files that scripts/setup.sh keeps from the pinned source: the chat
/// templates of model families (`templates/NAME.jinja`) and vocabulary-only GGUF files
/// (`vocab/ggml-vocab-NAME.gguf`).
public enum ReferenceFiles {
    /// The folder (for llama-cpp-python 0.3.36, the version setup.sh pins).
    public static var folder: URL {
        // Beside the models, in Tide's cache folder.
        ModelStore.standard.directory.deletingLastPathComponent().appendingPathComponent("llama.cpp-reference/0.3.36")
    }

    /// The template `name` (`meta-llama-Llama-3.2-3B-Instruct`), as text.
    public static func template(_ name: String) throws -> String {
        let file = folder.appendingPathComponent("templates/\(name).jinja")
        guard FileManager.default.fileExists(atPath: file.path) else {
            throw ServerProcess.Failure(description: "no template \(file.path): run scripts/setup.sh")
        }
        return try String(contentsOf: file, encoding: .utf8)
    }

    /// The template `name` (`google-gemma-3-it`) of a family llama.cpp keeps none of, from this
    /// repository's `Tests/TideTestSupport/Fixtures/templates`, as text.
    public static func ownTemplate(_ name: String) throws -> String {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/templates")
        return try String(contentsOf: folder.appendingPathComponent("\(name).jinja"), encoding: .utf8)
    }

    /// Renders `template` with Jinja, as Hugging Face's transformers renders chat templates (the
    /// model's authors' intent): `messages` and `tools` are OpenAI-style JSON, and the generation
    /// prompt is added. Runs the Python of llama-cpp-python's environment (it has jinja2).
    public static func render(template: String, messages: String, tools: String?, extra: [String: any Sendable] = [:]) throws -> String {
        let script = """
            import json, sys, datetime, jinja2
            from jinja2.sandbox import ImmutableSandboxedEnvironment
            def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
                return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)
            def raise_exception(message):
                raise jinja2.exceptions.TemplateError(message)
            env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
            env.filters["tojson"] = tojson
            env.globals["raise_exception"] = raise_exception
            arguments = json.loads(sys.argv[1])
            template = env.from_string(arguments["template"])
            context = {"messages": json.loads(arguments["messages"]), "add_generation_prompt": True,
                       "bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"}
            if arguments["tools"] is not None: context["tools"] = json.loads(arguments["tools"])
            context.update(arguments["extra"])
            sys.stdout.write(template.render(**context))
            """
        // The JSON goes as text: its key order is the order the template writes.
        let input: [String: Any] = ["template": template, "messages": messages, "tools": tools ?? NSNull(), "extra": extra]
        let argument = String(decoding: try JSONSerialization.data(withJSONObject: input), as: UTF8.self)
        let process = Process()
        process.executableURL = LlamaCppPythonServer.python
        process.arguments = ["-c", script, argument]
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let rendered = output.fileHandleForReading.readDataToEndOfFile()
        let failure = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ServerProcess.Failure(description: "jinja2 could not render the template: \(String(decoding: failure, as: UTF8.self))")
        }
        return String(decoding: rendered, as: UTF8.self)
    }
}
