import Testing

/// Every suite that runs the real model in this process. They run one test at a time: each
/// test has its own llama.cpp context and thread pool, and several decoding at once on a
/// 2-core machine only slow each other down.
@Suite(.serialized) enum RealModelTests {}
