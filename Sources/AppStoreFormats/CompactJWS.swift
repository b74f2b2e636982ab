public import Foundation
public import X509
import SwiftASN1

/// A compact JWS split into its parts, without verifying anything.
///
/// Use it to inspect tokens (`storekit jws decode`) or to read Xcode-signed payloads, which no Apple chain
/// verifies. To trust a payload, use ``JWSVerifier``.
public struct CompactJWS: Sendable {
    /// The header as ordered JSON.
    public let header: JSONValue
    /// The header's `alg`.
    public let algorithm: String?
    /// The header's `kid`, if any.
    public let keyID: String?
    /// The DER certificates of the header's `x5c`, leaf first.
    public let certificateChain: [Data]
    /// The payload's JSON bytes.
    public let payload: Data
    /// The signature bytes (raw r‖s for ES256).
    public let signature: Data
    /// The signed bytes: ASCII `header.payload`.
    public let signingInput: Data

    /// Splits and decodes `token`. Throws ``FormatError`` when it is not three base64url segments with a JSON
    /// header whose `x5c` entries are base64.
    public init(_ token: String) throws {
        let parts = token.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw FormatError.malformedData("A compact JWS has three dot-separated parts; this has \(parts.count).")
        }
        guard let headerBytes = Base64.decode(parts[0].utf8), let payloadBytes = Base64.decode(parts[1].utf8),
            let signatureBytes = Base64.decode(parts[2].utf8)
        else {
            throw FormatError.malformedData("A JWS part is not base64url.")
        }
        let header = try JSONValue.parse(headerBytes)
        guard case .object = header else { throw FormatError.malformedData("The JWS header is not a JSON object.") }
        var chain: [Data] = []
        if let x5c = header["x5c"] {
            guard case .array(let entries) = x5c else { throw FormatError.malformedData("The x5c header is not an array.") }
            for entry in entries {
                guard let text = entry.stringValue, let der = Base64.decode(text.utf8) else {
                    throw FormatError.malformedData("An x5c entry is not base64.")
                }
                chain.append(Data(der))
            }
        }
        self.header = header
        self.algorithm = header["alg"]?.stringValue
        self.keyID = header["kid"]?.stringValue
        self.certificateChain = chain
        self.payload = Data(payloadBytes)
        self.signature = Data(signatureBytes)
        self.signingInput = Data(token.trimmingCharacters(in: .whitespacesAndNewlines).utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
    }

    /// The payload as ordered JSON.
    public var payloadJSON: JSONValue {
        get throws { try JSONValue.parse(payload) }
    }

    /// Decodes the payload with Apple's conventions (millisecond dates).
    public func decodePayload<Payload: Decodable>(as type: Payload.Type) throws -> Payload {
        try AppStoreJSON.decode(type, from: payload)
    }

    /// The `x5c` certificates parsed, leaf first.
    public var certificates: [Certificate] {
        get throws { try certificateChain.map { try CertificateParser.certificate(derEncoded: Array($0)) } }
    }
}
