/// A parsed JSON value (`JSONParser`). Numbers are `Double`s, correctly rounded from their text.
///
/// `==` compares numbers as `Double`s (so `0` equals `-0`) and objects member by member in document order.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    public var kind: JSONKind {
        switch self {
        case .null: .null
        case .bool: .bool
        case .number: .number
        case .string: .string
        case .array: .array
        case .object: .object
        }
    }

    /// "null", "a boolean", "an array"…: for error messages.
    public var kindName: String { kind.nameWithArticle }
}

/// A JSON object's members in document order.
///
/// `JSONParser` never makes one with a repeated key; one built by hand may have them, and then looking a
/// key up returns the last member with that key, as `JSONSerialization` does; iterating gives every
/// member. Lookup is a linear search: the objects read here have a handful of keys, where that beats
/// hashing.
public struct JSONObject: Sendable, Equatable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    public typealias Element = (key: String, value: JSONValue)

    /// One allocation per object (two parallel arrays would take two).
    struct Member: Sendable, Equatable {
        var key: String
        var value: JSONValue
    }

    var storage: [Member]

    public init() {
        storage = []
    }

    /// The members in this order; a repeated key is kept (lookup finds the last).
    public init(_ members: [(key: String, value: JSONValue)]) {
        storage = members.map { Member(key: $0.key, value: $0.value) }
    }

    /// `["a": .number(1), "a": .number(2)]` keeps both members, in order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        storage = elements.map { Member(key: $0.0, value: $0.1) }
    }

    init(storage: [Member]) {
        self.storage = storage
    }

    /// The value of the last member named `key`, or `nil` when there is none.
    public subscript(key: String) -> JSONValue? {
        var i = storage.count
        while i > 0 {
            i -= 1
            if storage[i].key == key { return storage[i].value }
        }
        return nil
    }

    /// Every member's key in document order, repeated keys repeated.
    public var keys: [String] {
        storage.map(\.key)
    }

    /// Every member in document order.
    public var members: [(key: String, value: JSONValue)] {
        storage.map { ($0.key, $0.value) }
    }

    // MARK: RandomAccessCollection (count, iteration, members by position)

    public var startIndex: Int { 0 }
    public var endIndex: Int { storage.count }
    public var count: Int { storage.count }

    public subscript(position: Int) -> (key: String, value: JSONValue) {
        let member = storage[position]
        return (member.key, member.value)
    }
}
