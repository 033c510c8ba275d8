import TideCore
import TideOpenAI

/// A reply's log-probabilities in `--json` output (`tide generate`, `tide run`): its tokens in
/// OpenAI's chat shape (`token`, `logprob`, `bytes`, `top_logprobs`), their perplexity and their
/// mean log-probability. Present when the reply was made with them (`--logprobs`, `@logprobs`,
/// or a script's `perplexity` or `mean-logprob` check).
public struct LogprobsJSON: Encodable {
    /// Each token, with its log-probability and the likeliest others.
    public var tokens: [ChatLogprobs.Entry]
    /// The reply's perplexity.
    public var perplexity: Double?
    /// The mean log-probability of its tokens.
    public var mean_logprob: Double?

    /// The JSON of `scored`; `nil` for none.
    public init?(_ scored: [TokenLogprob]) {
        guard !scored.isEmpty else { return nil }
        tokens = ChatLogprobs(scored).content
        perplexity = scored.perplexity
        mean_logprob = scored.meanLogprob
    }
}
