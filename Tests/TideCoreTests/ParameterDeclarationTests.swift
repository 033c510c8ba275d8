import Foundation
import Testing
import TideCore
import TideTestSupport

/// The one declaration of each generation parameter, and the surfaces that take it from there.
@Suite struct ParameterDeclarationTests {
    @Test func namesAndFieldsAreUnique() {
        let names = GenerationParameters.declarations.map(\.name)
        let fields = GenerationParameters.declarations.flatMap { [$0.field] + $0.aliases }
        #expect(Set(names).count == names.count)
        #expect(Set(fields).count == fields.count)
    }

    @Test func everyParameterIsChangedByTheFixtureAndItsDefaultIsValid() throws {
        try GenerationParameters().validate()
        try GenerationParameters.everyOneChanged.validate()
        let unchanged = ParameterSetting.all(of: GenerationParameters())
        for (changed, original) in zip(ParameterSetting.all(of: GenerationParameters.everyOneChanged), unchanged) {
            #expect(changed != original, "\(changed.name) is not changed by the fixture")
        }
    }

    @Test func docsSamplingListsEveryParameter() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/sampling.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        for declaration in GenerationParameters.declarations {
            #expect(text.contains("| `\(declaration.name)` | `\(declaration.field)`"), "docs/sampling.md lacks \(declaration.name)")
        }
    }

    /// A directive's text (and `/set`'s), written and read back, gives the same setting.
    @Test func theTextFormRoundTrips() throws {
        for parameters in [GenerationParameters(), GenerationParameters.everyOneChanged] {
            for setting in ParameterSetting.all(of: parameters) {
                let text = setting.declaration.text(of: setting.value)
                #expect(try ParameterSetting(name: setting.name, text: text) == setting, "\(setting)")
            }
        }
    }

    /// The log's and `--json`'s JSON, and a preset's, read back give the same parameters.
    @Test func theJSONFormsRoundTrip() throws {
        let parameters = GenerationParameters.everyOneChanged
        let json = try JSONEncoder().encode(ParametersJSON(parameters))
        #expect(try JSONDecoder().decode(ParametersJSON.self, from: json).parameters == parameters)
        for setting in ParameterSetting.all(of: parameters) {
            let value = try JSONDecoder().decode(ParameterValue.self, from: JSONEncoder().encode(setting.value))
            #expect(try ParameterSetting(name: setting.name, value: value) == setting)
        }
    }

    /// A log written before a parameter existed reads it as its default.
    @Test func aMissingFieldIsTheDefault() throws {
        let json = #"{"temperature": 0, "top_k": 40, "top_p": 0.95, "min_p": 0.05, "repeat_penalty": 1, "repeat_last_n": 64, "max_tokens": 10, "stop": [], "max_rewinds": 32}"#
        let parameters = try JSONDecoder().decode(ParametersJSON.self, from: Data(json.utf8)).parameters
        #expect(parameters.dryMultiplier == 0 && parameters.logitBias.isEmpty && parameters.maxTokens == 10)
    }

    /// Every number is refused out of llama.cpp's range, and every count refuses a fraction.
    @Test func valuesOutOfRangeAreRefusedWithTheRange() {
        for declaration in GenerationParameters.declarations {
            var parameters = GenerationParameters()
            switch declaration.value(in: parameters) {
            case .number(let number):
                #expect(throws: InvalidParameterError.self, "\(declaration.name)") { try declaration.set(.number(1e39), in: &parameters) }
                if number == number.rounded(), declaration.placeholder == "n" {
                    #expect(throws: InvalidParameterError.self, "\(declaration.name)") { try declaration.set(.number(0.5), in: &parameters) }
                }
            default:
                #expect(throws: InvalidParameterError.self, "\(declaration.name)") { try declaration.set(.number(0.5), in: &parameters) }
            }
        }
        #expect(throws: InvalidParameterError(name: "presence-penalty", value: "'3'", requirement: "a number from -2 to 2")) {
            try ParameterSetting(name: "presence-penalty", text: "3")
        }
        #expect(throws: InvalidParameterError.self) { try ParameterSetting(name: "logit-bias", text: "15=101") }
        #expect(throws: InvalidParameterError.self) { try ParameterSetting(name: "logit-bias", text: #"""=1"#) }
        #expect(throws: InvalidParameterError.self) { try ParameterSetting(name: "dry-sequence-breakers", value: []) }
        #expect(throws: InvalidParameterError(unknown: "top-q")) { try ParameterSetting(name: "top-q", text: "1") }
    }

    /// Every list a request may send is bounded, in count and in each text's bytes, on every
    /// surface (a request's JSON, an option's words): what the sampler prepares stays small.
    @Test func listsAreBoundedInCountAndLength() throws {
        let texts = { (count: Int, bytes: Int) in ParameterValue.list((0..<count).map { .text(String(repeating: "x", count: bytes - 1) + "\($0 % 10)") }) }
        for (name, count, bytes) in [("stop", 64, 1024), ("dry-sequence-breakers", 64, 40)] {
            _ = try ParameterSetting(name: name, value: texts(count, bytes))
            #expect(throws: InvalidParameterError.self, "\(name) × \(count + 1)") { try ParameterSetting(name: name, value: texts(count + 1, 1)) }
            #expect(throws: InvalidParameterError.self, "\(name) of \(bytes + 1) bytes") { try ParameterSetting(name: name, value: texts(1, bytes + 1)) }
            #expect(GenerationParameters.declaration(named: name)?.requirement.contains("at most \(count)") == true)
        }
        // "é" is two bytes: a bound counts bytes, as llama.cpp's does.
        #expect(throws: InvalidParameterError.self) { try ParameterSetting(name: "dry-sequence-breakers", value: [.text(String(repeating: "é", count: 21))]) }
        let biases = { (count: Int) in ParameterValue.map(Dictionary(uniqueKeysWithValues: (0..<count).map { ("\($0)", ParameterValue.number(-1)) })) }
        _ = try ParameterSetting(name: "logit-bias", value: biases(1024))
        #expect(throws: InvalidParameterError.self) { try ParameterSetting(name: "logit-bias", value: biases(1025)) }
        #expect(throws: InvalidParameterError.self) { try ParameterSetting(name: "logit-bias", value: .map([String(repeating: "w", count: 257): 1])) }
        #expect(throws: InvalidParameterError.self) {
            try ParameterSetting(name: "logit-bias", text: (0...1024).map { "\($0)=1" }.joined(separator: " "))
        }
    }

    @Test func logitBiasesReadEveryWayTheyAreWritten() throws {
        let text = try ParameterSetting(name: "logit-bias", text: #"15=-100 Paris=2.5 "a b=c"=-inf"#)
        #expect(text.value == [[15, -100], ["Paris", 2.5], ["a b=c", false]])
        let openAI = try ParameterSetting(name: "logit-bias", value: .map(["15": -100, "20": 5]))
        #expect(openAI.value == .map(["15": -100, "20": 5]), "distinct token ids with no ban are written back as OpenAI's map")
        #expect(openAI.description == "logit-bias 15=-100 20=5")
        let ban = try ParameterSetting(name: "logit-bias", value: .map(["15": false]))
        #expect(ban.value == [[15, false]], "a ban, which OpenAI's map cannot say, is written as a pair")
        let twice = try ParameterSetting(name: "logit-bias", text: "15=5 15=3")
        #expect(twice.value == [[15, 5], [15, 3]], "two biases of one token are both kept (llama.cpp adds them)")
    }
}
