/// The body of `GET /v1/models`: the models a server runs.
public struct ModelList: Codable, Sendable, Hashable {
    /// One model.
    public struct Model: Codable, Sendable, Hashable {
        public var id: String
        public var object: String
        public var created: Int
        public var ownedBy: String
        /// What the model is served for: `chat` or `embedding` (Tide's servers; `nil` from others).
        public var purpose: String?
        /// Whether its weights are in memory now (Tide's servers load each on its first request).
        public var loaded: Bool?
        /// The tokens one request's conversation may hold, when known (loaded, or estimated).
        public var contextLength: Int?
        /// Where it runs (`CPU`, or the GPU and its layers), when loaded.
        public var runsOn: String?

        enum CodingKeys: String, CodingKey {
            case id, object, created
            case ownedBy = "owned_by"
            case purpose, loaded
            case contextLength = "context_length"
            case runsOn = "runs_on"
        }

        /// A model entry; servers differ in what else they send, and only `id` is read back.
        public init(id: String, created: Int, ownedBy: String) {
            self.id = id
            object = "model"
            self.created = created
            self.ownedBy = ownedBy
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(String.self, forKey: .id)
            object = try container.decodeIfPresent(String.self, forKey: .object) ?? "model"
            created = try container.decodeIfPresent(Int.self, forKey: .created) ?? 0
            ownedBy = try container.decodeIfPresent(String.self, forKey: .ownedBy) ?? ""
            purpose = try? container.decodeIfPresent(String.self, forKey: .purpose)
            loaded = try? container.decodeIfPresent(Bool.self, forKey: .loaded)
            contextLength = try? container.decodeIfPresent(Int.self, forKey: .contextLength)
            runsOn = try? container.decodeIfPresent(String.self, forKey: .runsOn)
        }
    }

    public var object: String
    public var data: [Model]

    /// A list of `data`.
    public init(data: [Model]) {
        object = "list"
        self.data = data
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        object = try container.decodeIfPresent(String.self, forKey: .object) ?? "list"
        data = try container.decode([Model].self, forKey: .data)
    }

    enum CodingKeys: String, CodingKey { case object, data }
}
