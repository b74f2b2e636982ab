import AppStoreEngine
import AppStoreFormats
import AppStoreServer
import Foundation
import HTTPTypes
import Hummingbird
import Testing

/// The tables of `ServerSurface.md`: every App Store Server API, Advanced Commerce and External Purchase route the
/// server registers is a row, and every row is a registered route; every field of the signed payloads' JSON is a row
/// of its payload's table, and every row is a field.
@Suite("Server surface document")
struct ServerSurfaceDocumentTests {
    /// The prefixes of Apple's surfaces among the server's routes.
    static let applePrefixes = ["/inApps/", "/advancedCommerce/", "/externalPurchase/"]

    /// `Sources/AppStoreServer/AppStoreServer.docc/ServerSurface.md`.
    static let article = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/AppStoreServer/AppStoreServer.docc/ServerSurface.md")

    /// The `METHOD /path` of each row of the article's endpoint tables: a row whose first cell is a method in code
    /// voice and whose second cell is a path in code voice.
    static func documentedEndpoints() throws -> Set<String> {
        let text = try String(contentsOf: article, encoding: .utf8)
        let methods: Set<String> = ["GET", "POST", "PUT", "PATCH", "DELETE"]
        return Set(text.split(separator: "\n").compactMap { line -> String? in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count > 3, cells[0].isEmpty else { return nil }
            let method = cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            let path = cells[2].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            guard methods.contains(method), path.hasPrefix("/") else { return nil }
            return "\(method) \(path)"
        })
    }

    @Test("Every Apple route the router registers is a row of ServerSurface.md's endpoint tables, and every row is a registered route")
    func everyAppleRouteInTheTable() throws {
        let start = Date(timeIntervalSince1970: 1_768_478_400)
        let engine = StoreEngine(
            catalog: Catalog(products: []), storage: InMemoryStorage(), clock: VirtualClock(start: start), signer: .ephemeral
        )
        let registered = Set(
            StoreServer(engine: engine, port: 0).makeRouter().routes
                .map { route in
                    // Hummingbird writes captures as `:name`; the article, as Apple does, as `{name}`.
                    let path = "/" + route.path.description.split(separator: "/").map { part in
                        part.hasPrefix(":") ? "{\(part.dropFirst())}" : String(part)
                    }.joined(separator: "/")
                    return "\(route.method.rawValue) \(path)"
                }
                .filter { route in Self.applePrefixes.contains { route.contains(" \($0)") } }
        )
        let documented = try Self.documentedEndpoints()
        #expect(registered.count > 30)
        #expect(registered.subtracting(documented).sorted() == [], "routes missing from ServerSurface.md")
        #expect(documented.subtracting(registered).sorted() == [], "rows of ServerSurface.md the router does not have")
    }

    /// The signed payloads, by the type name their table's heading names in code voice.
    static var payloads: [String: any Decodable.Type] {
        [
            "JWSTransactionDecodedPayload": JWSTransactionDecodedPayload.self,
            "JWSRenewalInfoDecodedPayload": JWSRenewalInfoDecodedPayload.self,
            "AppTransactionPayload": AppTransactionPayload.self,
            "ResponseBodyV2DecodedPayload": ResponseBodyV2DecodedPayload.self,
            "NotificationData": NotificationData.self,
            "NotificationSummary": NotificationSummary.self,
            "ExternalPurchaseToken": ExternalPurchaseToken.self,
            "AppData": AppData.self,
        ]
    }

    /// The field rows of each payload's table: a `### ` heading naming the type in code voice, then rows whose first
    /// cell is a field name in code voice.
    static func documentedFields() throws -> [String: Set<String>] {
        var fields: [String: Set<String>] = [:]
        var section: String?
        for line in try String(contentsOf: article, encoding: .utf8).split(separator: "\n") {
            if line.hasPrefix("#") {
                section = payloads.keys.first { line.hasPrefix("### ") && line.contains("`\($0)`") }
                continue
            }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard let section, cells.count > 2, cells[0].isEmpty, cells[1].hasPrefix("`"), cells[1].hasSuffix("`") else { continue }
            fields[section, default: []].insert(cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`")))
        }
        return fields
    }

    @Test("Every JSON field of each signed payload is a row of its table in ServerSurface.md, and every row is a field")
    func everyPayloadFieldInTheTable() throws {
        let documented = try Self.documentedFields()
        #expect(Set(documented.keys) == Set(Self.payloads.keys), "a payload without its table")
        for (name, type) in Self.payloads {
            let keys = FieldRecorder.fields(of: type)
            #expect(keys.count > 3, "\(name)")
            let rows = documented[name] ?? []
            #expect(keys.subtracting(rows).sorted() == [], "\(name)'s fields missing from ServerSurface.md")
            #expect(rows.subtracting(keys).sorted() == [], "rows of \(name) in ServerSurface.md that are no field")
        }
    }
}

/// A `Decoder` that holds no value and notes every key a type's `init(from:)` looks for: the JSON field names of a
/// type whose fields are all optional, as its `CodingKeys` spell them.
final class FieldRecorder: Decoder, @unchecked Sendable {
    var keys: Set<String> = []
    let codingPath: [any CodingKey] = []
    let userInfo: [CodingUserInfoKey: Any] = [:]

    /// The field names `type` decodes.
    static func fields(of type: any Decodable.Type) -> Set<String> {
        let recorder = FieldRecorder()
        _ = try? type.init(from: recorder)
        return recorder.keys
    }

    struct Absent: Error {}

    struct Container<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let recorder: FieldRecorder
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] { [] }
        func contains(_ key: Key) -> Bool {
            recorder.keys.insert(key.stringValue)
            return false
        }
        func decodeNil(forKey key: Key) -> Bool { true }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { throw Absent() }
        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> { throw Absent() }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { throw Absent() }
        func superDecoder() throws -> any Decoder { throw Absent() }
        func superDecoder(forKey key: Key) throws -> any Decoder { throw Absent() }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Container(recorder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw Absent() }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { throw Absent() }
}
