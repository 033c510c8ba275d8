import Foundation
import Testing

extension CommandLineTests {
    /// The generation parameters as options, in help, and as `tide serve`'s request fields, all
    /// taken from their declarations.
    @Suite struct SamplingOptionTests {
        static let newSamplers = ["presence-penalty", "frequency-penalty", "logit-bias", "dry-multiplier", "dry-base",
                                  "dry-allowed-length", "dry-penalty-last-n", "dry-sequence-breakers", "xtc-probability",
                                  "xtc-threshold", "typical-p", "top-n-sigma", "mirostat", "mirostat-tau", "mirostat-eta"]

        @Test func theHelpOfEveryCommandThatTakesThemListsThem() throws {
            for command in [["generate"], ["chat"], ["run"], ["serve"], ["models", "create"], ["help", "generate"]] {
                let help = try TideProcess.run(command + (command.first == "help" ? [] : ["--help"]))
                #expect(help.status == 0)
                for name in ["temperature", "top-k", "max-tokens", "stop"] + Self.newSamplers {
                    #expect(help.stdout.contains("--\(name) <"), "\(command): --\(name) missing")
                }
            }
            #expect(try !TideProcess.run(["plugins", "--help"]).stdout.contains("--dry-multiplier"))
        }

        @Test func aBadValueIsAUsageErrorThatNamesIt() throws {
            let result = try TideProcess.run(["generate", "--presence-penalty", "3", "Hi"])
            #expect(result.status == 2)
            #expect(result.stderr.contains("--presence-penalty must be a number from -2 to 2, not '3'"), "\(result.stderr)")
            let bias = try TideProcess.run(["generate", "--logit-bias=15", "Hi"])
            #expect(bias.status == 2 && bias.stderr.contains("--logit-bias must be token ids or texts"), "\(bias.stderr)")
        }

        @Test func optionsReachTheReplyAndItsJSON() throws {
            let result = try TideProcess.run(["generate", "--temperature", "0", "--max-tokens", "4", "--stop=END", "--logit-bias", "15=-1",
                                              "--logit-bias", " Paris=-inf", "--dry-multiplier", "0.5", "--json", "--", "--top-k"])
            #expect(result.status == 0, "\(result.stderr)")
            let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            let parameters = try #require(json?["parameters"] as? [String: Any])
            #expect(parameters["stop"] as? [String] == ["END"])
            #expect(parameters["dry_multiplier"] as? Double == 0.5)
            #expect((parameters["logit_bias"] as? [[Any]])?.count == 2, "\(parameters)")
            #expect(parameters["top_k"] as? Int == 40, "an argument after -- is the prompt, not an option")
        }

        @Test func tideServeHonoursLlamaServersFieldsAndRefusesWhatTheModelCannotTake() async throws {
            let server = try await TideServer()
            let ask = #""model": "m", "messages": [{"role": "user", "content": "Name a city."}], "temperature": 0, "max_tokens": 8"#
            let accepted = try await server.post(#"{\#(ask), "presence_penalty": 0.5, "frequency_penalty": 0.5, "dry_multiplier": 0.8, "#
                + #""typical_p": 0.9, "xtc_probability": 0.5, "seed": 3, "logit_bias": {"15": -100, "Paris": false}}"#)
            #expect(accepted.status == 200, "\(accepted.json)")
            for (field, value, words) in [("logit_bias", #"{"60000": 1}"#, "a token id of this model"),
                                          ("presence_penalty", "3", "a number from -2 to 2"), ("mirostat", "3", "0, 1 or 2")] {
                let refused = try await server.post(#"{\#(ask), "\#(field)": \#(value)}"#)
                let error = refused.json["error"] as? [String: Any]
                let message = error?["message"] as? String ?? ""
                #expect(refused.status == 400 && error?["param"] as? String == field, "\(refused.json)")
                #expect(message.contains(words), "\(refused.json)")
            }
        }
    }
}
