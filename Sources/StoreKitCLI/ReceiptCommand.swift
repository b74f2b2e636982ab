import AppStoreFormats
import ArgumentParser
import Foundation
import X509

/// `storekit receipt …`: read and verify app receipts.
struct ReceiptCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receipt",
        abstract: "Write, decode and verify app receipts (PKCS#7, as in Bundle.main.appStoreReceiptURL).",
        discussion: """
            Reads the store's receipts, Apple's production and sandbox receipts and Xcode's receipts, as DER, BER
            or base64.

            Examples:
              storekit receipt --bundle-id com.example.demo --out receipt.der
              storekit receipt decode receipt.b64 --json
              storekit receipt verify receipt.der --root roots.pem --device-id 956328D9-CC6A-47F4-BE40-6953FB0AB6C7
            """,
        subcommands: [Write.self, Decode.self, Verify.self],
        defaultSubcommand: Write.self
    )

    /// `storekit receipt decode FILE`.
    struct Decode: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "decode",
            abstract: "Print a receipt's fields without verifying it.",
            discussion: """
                FILE holds the receipt as DER, BER (Xcode's receipts) or base64 text (as sent to verifyReceipt).
                Prints the envelope (encoding, algorithms, certificates) and every attribute, undocumented ones
                by number. --json prints one JSON object with verifyReceipt-style field names.

                Examples:
                  storekit receipt decode receipt.der
                  storekit receipt decode receipt.b64 --json
                """
        )

        @Argument(help: "The receipt file (DER, BER or base64).")
        var file: String

        @Flag(help: "Print JSON.")
        var json = false

        func run() async throws {
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: file))
            } catch {
                throw FormatsCLI.failure("cannot read \(file): \(error.localizedDescription)")
            }
            let envelope: SignedReceipt
            let receipt: AppReceipt
            do {
                envelope = try SignedReceipt(data: data)
                receipt = try envelope.decodeReceipt()
            } catch {
                throw FormatsCLI.failure("\(file) is not a receipt: \(error)")
            }
            if json {
                print(ReceiptRendering.json(receipt, envelope: envelope).prettyPrinted)
            } else {
                print(ReceiptRendering.text(receipt, envelope: envelope))
            }
        }
    }

    /// `storekit receipt verify FILE --root CERT`.
    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify",
            abstract: "Verify a receipt's signature and certificate chain (and optionally its device hash).",
            discussion: """
                Checks that the receipt is signed by a certificate that chains to a root in CERT (PEM, possibly
                several, or DER), with every certificate valid at the receipt's creation date. With --device-id,
                also checks the hash (attribute 5) for that identifierForVendor. Exits with status 1 and the
                reason when the receipt is invalid.

                Examples:
                  storekit ca export > roots.pem
                  storekit receipt verify receipt.der --root roots.pem
                  storekit receipt verify receipt.b64 --root AppleIncRootCertificate.cer --device-id 956328D9-CC6A-47F4-BE40-6953FB0AB6C7
                """
        )

        @Argument(help: "The receipt file (DER, BER or base64).")
        var file: String

        @Option(help: "Trusted root certificate(s), PEM or DER.")
        var root: String

        @Option(name: .customLong("device-id"), help: "The device's identifierForVendor UUID; checks the receipt hash.")
        var deviceID: String?

        @Option(name: .customLong("bundle-id"), help: "The bundle ID the receipt must carry.")
        var bundleID: String?

        func run() async throws {
            let data: Data
            let roots: [Data]
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: file))
                roots = try FormatsCLI.readCertificates(path: root)
            } catch {
                throw FormatsCLI.failure("\(error.localizedDescription)")
            }
            var device: UUID?
            if let deviceID {
                guard let uuid = UUID(uuidString: deviceID) else { throw FormatsCLI.failure("--device-id \(deviceID) is not a UUID.") }
                device = uuid
            }
            let verifier: ReceiptVerifier
            do {
                verifier = try ReceiptVerifier(rootCertificates: roots, bundleID: bundleID)
            } catch {
                throw FormatsCLI.failure("\(root): \(error)")
            }
            let result =
                if let device { await verifier.verify(data, deviceIdentifier: device) } else { await verifier.verify(data) }
            switch result {
            case .success(let receipt):
                print("valid: \(receipt.receiptType) receipt for \(receipt.bundleID) \(receipt.appVersion) with \(receipt.inAppPurchases.count) in-app purchase(s)\(device == nil ? "" : ", hash matches the device")")
            case .failure(let reason):
                print("invalid: \(reason.message)")
                throw ExitCode(1)
            }
        }
    }
}

/// Text and JSON renderings of a decoded receipt.
enum ReceiptRendering {
    static func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }

    static func date(_ date: Date?) -> JSONValue {
        guard let date else { return .null }
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return .string(formatter.string(from: date))
    }

    static func json(_ receipt: AppReceipt, envelope: SignedReceipt) -> JSONValue {
        func member(_ key: String, _ value: JSONValue) -> JSONValue.Member { .init(key: key, value: value) }
        func other(_ attributes: [ReceiptAttribute]) -> JSONValue {
            .array(attributes.map { attribute in
                .object([
                    member("type", .number(String(attribute.type))),
                    member("version", .number(String(attribute.version))),
                    member("value", .string(hex(attribute.value))),
                ])
            })
        }
        let inApps: [JSONValue] = receipt.inAppPurchases.map { purchase in
            var members = [
                member("quantity", .number(String(purchase.quantity))),
                member("product_id", .string(purchase.productID)),
                member("transaction_id", .string(purchase.transactionID)),
                member("original_transaction_id", purchase.originalTransactionID.map(JSONValue.string) ?? .null),
                member("purchase_date", date(purchase.purchaseDate)),
                member("original_purchase_date", date(purchase.originalPurchaseDate)),
                member("product_type", purchase.rawProductType.map { .number(String($0)) } ?? .null),
                member("expires_date", date(purchase.expiresDate)),
                member("web_order_line_item_id", purchase.webOrderLineItemID.map { .string(String($0)) } ?? .null),
                member("cancellation_date", date(purchase.cancellationDate)),
                member("is_trial_period", .string(purchase.isTrialPeriod ? "true" : "false")),
                member("is_in_intro_offer_period", .string(purchase.isInIntroOfferPeriod ? "true" : "false")),
                member("promotional_offer_id", purchase.promotionalOfferID.map(JSONValue.string) ?? .null),
            ]
            if !purchase.additionalAttributes.isEmpty { members.append(member("other_attributes", other(purchase.additionalAttributes))) }
            return .object(members)
        }
        let certificates: [JSONValue] = envelope.certificates.map { certificate in
            .object([
                member("subject", .string(certificate.subject.description)),
                member("issuer", .string(certificate.issuer.description)),
                member("not_before", date(certificate.notValidBefore)),
                member("not_after", date(certificate.notValidAfter)),
            ])
        }
        return .object([
            member("envelope", .object([
                member("encoding", .string(envelope.isDER ? "DER" : "BER")),
                member("digest_algorithm", .string(envelope.digestAlgorithm)),
                member("signature_algorithm", .string(envelope.signatureAlgorithm)),
                member("signed_attributes", .bool(envelope.signedAttributes != nil)),
                member("certificates", .array(certificates)),
            ])),
            member("receipt_type", .string(receipt.receiptType)),
            member("app_item_id", .number(String(receipt.appItemID))),
            member("bundle_id", .string(receipt.bundleID)),
            member("application_version", .string(receipt.appVersion)),
            member("opaque_value", .string(hex(receipt.opaqueValue))),
            member("sha1_hash", .string(hex(receipt.sha1Hash))),
            member("receipt_creation_date", date(receipt.creationDate)),
            member("original_purchase_date", date(receipt.originalPurchaseDate)),
            member("original_application_version", receipt.originalAppVersion.map(JSONValue.string) ?? .null),
            member("expiration_date", date(receipt.expirationDate)),
            member("in_app", .array(inApps)),
            member("other_attributes", other(receipt.additionalAttributes)),
        ])
    }

    static func text(_ receipt: AppReceipt, envelope: SignedReceipt) -> String {
        var lines: [String] = []
        func add(_ value: JSONValue, indent: String) {
            guard case .object(let members) = value else { return }
            for member in members {
                switch member.value {
                case .null: continue
                case .string(let text): lines.append("\(indent)\(member.key): \(text)")
                case .number(let text): lines.append("\(indent)\(member.key): \(text)")
                case .bool(let flag): lines.append("\(indent)\(member.key): \(flag)")
                case .object: 
                    lines.append("\(indent)\(member.key):")
                    add(member.value, indent: indent + "  ")
                case .array(let elements):
                    if elements.isEmpty { continue }
                    for (index, element) in elements.enumerated() {
                        lines.append("\(indent)\(member.key)[\(index)]:")
                        add(element, indent: indent + "  ")
                    }
                }
            }
        }
        add(json(receipt, envelope: envelope), indent: "")
        return lines.joined(separator: "\n")
    }
}
