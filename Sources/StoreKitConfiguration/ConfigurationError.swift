public import Foundation

/// Why a `.storekit` file could not be loaded: every problem found in one pass, each naming its place.
///
/// Loading never stops at the first problem, and never returns a partial model: either the whole file is
/// valid and you get a ``StoreKitConfigurationFile``, or you get this error listing everything to fix.
/// Its `description` renders one line per issue, ready to print:
///
/// ```
/// Demo.storekit: subscriptionGroups[0].subscriptions[1].recurringSubscriptionPeriod: "P1Q" is not an ISO-8601 period. Use P<n>D, P<n>W, P<n>M or P<n>Y, e.g. P1M.
/// Demo.storekit:12:7: Expected ',' or '}' after the value of "productID", found '"'. Add a comma between members, or close the object with '}'.
/// ```
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The name used for the file in messages: the file name for ``StoreKitConfigurationFile/load(contentsOf:)``,
    /// the `sourceName` given to ``StoreKitConfigurationFile/init(data:sourceName:)``.
    public let sourceName: String
    /// Every problem found, in file order (syntax errors stop parsing, so they come alone).
    public let issues: [ConfigurationIssue]

    /// Creates an error; the loader does this, tests and tools wrapping the loader may too.
    public init(sourceName: String, issues: [ConfigurationIssue]) {
        self.sourceName = sourceName
        self.issues = issues
    }

    /// One line per issue: `<source>: <path>: <what is wrong> <how to fix it>`, or `<source>:<line>:<column>: …`
    /// for syntax errors.
    public var description: String {
        issues.map { issue in
            switch issue.location {
            case .file: return "\(sourceName): \(issue.message) \(issue.fix)"
            case .path(let path): return "\(sourceName): \(path): \(issue.message) \(issue.fix)"
            case .position(let line, let column): return "\(sourceName):\(line):\(column): \(issue.message) \(issue.fix)"
            }
        }.joined(separator: "\n")
    }

    /// The same text as ``description``, for APIs that show `localizedDescription`.
    public var errorDescription: String? { description }
}

/// One problem in a `.storekit` file: where it is, what is wrong, and how to fix it.
///
/// Test for a kind of problem with ``code`` (`issue.code == .invalidPeriod`); the wording of ``message`` and
/// ``fix`` may improve over time.
public struct ConfigurationIssue: Sendable, Equatable, CustomStringConvertible {
    /// Where the problem is.
    public enum Location: Sendable, Equatable, CustomStringConvertible {
        /// The file as a whole (it cannot be read, or its top level is not an object).
        case file
        /// A JSON path into the file, with array indices as in the file:
        /// `subscriptionGroups[0].subscriptions[1].adHocOffers[0].offerID`.
        case path(String)
        /// A 1-based line and column (columns count characters); used for JSON syntax errors.
        case position(line: Int, column: Int)

        /// `file`, the JSON path, or `line L, column C`.
        public var description: String {
            switch self {
            case .file: return "file"
            case .path(let path): return path
            case .position(let line, let column): return "line \(line), column \(column)"
            }
        }
    }

    /// The kind of problem; compare codes to test for one (`issue.code == .duplicateProductID`).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Sendable {
            case unreadableFile, syntaxError, notAnObject, missingKey, wrongType, invalidVersion
            case unknownProductType, misplacedProduct, emptyProductID, duplicateProductID
            case invalidPrice, invalidPeriod, unknownPaymentMode, invalidNumberOfPeriods
            case missingOfferID, duplicateOfferID, conflictingIntroductoryOffers
            case unknownSubscriptionGroup, duplicateGroupID, invalidGroupLevel
            case invalidStorefront, unknownTimeRate, duplicateSimulatedError, invalidPrivateKey
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The code's name, for logs (`invalidPeriod`).
        public var description: String { base.rawValue }

        /// The file could not be read from disk.
        public static let unreadableFile = Code(.unreadableFile)
        /// The file is not valid JSON; the location is a line and column.
        public static let syntaxError = Code(.syntaxError)
        /// The top level of the file is not a JSON object.
        public static let notAnObject = Code(.notAnObject)
        /// A key the store needs is missing (`productID`, `type`, `version`, …).
        public static let missingKey = Code(.missingKey)
        /// A value has the wrong JSON type (a string where a boolean belongs, …).
        public static let wrongType = Code(.wrongType)
        /// `version` is not an object with integer `major` and `minor`.
        public static let invalidVersion = Code(.invalidVersion)
        /// A product `type` is not one of Xcode's (case-sensitive) spellings.
        public static let unknownProductType = Code(.unknownProductType)
        /// A product's `type` does not belong in the list holding it (a subscription in `products`, …).
        public static let misplacedProduct = Code(.misplacedProduct)
        /// A `productID` is empty.
        public static let emptyProductID = Code(.emptyProductID)
        /// Two products share a `productID` (all lists share one namespace).
        public static let duplicateProductID = Code(.duplicateProductID)
        /// A price is neither a decimal number like `0.99` nor `""` (unset).
        public static let invalidPrice = Code(.invalidPrice)
        /// A period is not a single-component ISO-8601 duration (`P<n>D|W|M|Y`).
        public static let invalidPeriod = Code(.invalidPeriod)
        /// An offer's `paymentMode` is not `free`, `payAsYouGo` or `payUpFront`.
        public static let unknownPaymentMode = Code(.unknownPaymentMode)
        /// An offer's `numberOfPeriods` is below 1.
        public static let invalidNumberOfPeriods = Code(.invalidNumberOfPeriods)
        /// A promotional or win-back offer has no `offerID`.
        public static let missingOfferID = Code(.missingOfferID)
        /// Two offers of one subscription share an `offerID`.
        public static let duplicateOfferID = Code(.duplicateOfferID)
        /// `introductoryOffer` and `introductoryOffers` describe different offers, or two introductory offers
        /// apply to the same billing plan.
        public static let conflictingIntroductoryOffers = Code(.conflictingIntroductoryOffers)
        /// A subscription's `subscriptionGroupID` does not name the group that lists it.
        public static let unknownSubscriptionGroup = Code(.unknownSubscriptionGroup)
        /// Two subscription groups share an `id`.
        public static let duplicateGroupID = Code(.duplicateGroupID)
        /// A subscription's `groupNumber` (its level) is below 1.
        public static let invalidGroupLevel = Code(.invalidGroupLevel)
        /// `_storefront` is not an ISO 3166-1 alpha-3 country code such as `USA`.
        public static let invalidStorefront = Code(.invalidStorefront)
        /// `_timeRate` is not a raw value of `SKTestSession.TimeRate`.
        public static let unknownTimeRate = Code(.unknownTimeRate)
        /// Two `_storeKitErrors` entries have the same `name`.
        public static let duplicateSimulatedError = Code(.duplicateSimulatedError)
        /// `subscriptionOffersKeyPair.privateKey` is not base64.
        public static let invalidPrivateKey = Code(.invalidPrivateKey)
    }

    /// The kind of problem.
    public let code: Code
    /// Where the problem is.
    public let location: Location
    /// What is wrong, as a sentence.
    public let message: String
    /// How to fix it, as a sentence.
    public let fix: String

    /// Creates an issue.
    public init(code: Code, location: Location, message: String, fix: String) {
        self.code = code
        self.location = location
        self.message = message
        self.fix = fix
    }

    /// `<location>: <message> <fix>`.
    public var description: String { "\(location): \(message) \(fix)" }
}
