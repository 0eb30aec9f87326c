import CMCD

/// `match.cmcd`: conditions on what the player said in the request (its CMCD). Every condition given
/// must hold; one about a key the request did not send does not hold (`present: false` aside).
public struct CMCDCondition: Sendable, Equatable {
    /// true: only requests that carry CMCD; false: only those that carry none.
    public var present: Bool?
    /// `bl`, the buffer length for the requested object's type: below (strictly) and/or above (strictly).
    public var bufferBelow: Duration?
    public var bufferAbove: Duration?
    /// `mtp`, the player's throughput estimate, in bytes per second (rules write rates: "2Mbps").
    public var throughputBelow: Int?
    public var throughputAbove: Int?
    /// `su`: a startup (or seek, or recovery) request, or not.
    public var startup: Bool?
    /// `bs`: the player starved since its previous request, or not.
    public var starvation: Bool?
    /// `sta` (v2): the player's state is one of these.
    public var states: Set<CMCDPlayerState>?
    /// `ot`: the object type the player says it asks for.
    public var objectTypes: Set<CMCDObjectType>?

    public init(present: Bool? = nil, bufferBelow: Duration? = nil, bufferAbove: Duration? = nil,
                throughputBelow: Int? = nil, throughputAbove: Int? = nil, startup: Bool? = nil, starvation: Bool? = nil,
                states: Set<CMCDPlayerState>? = nil, objectTypes: Set<CMCDObjectType>? = nil) {
        self.present = present; self.bufferBelow = bufferBelow; self.bufferAbove = bufferAbove
        self.throughputBelow = throughputBelow; self.throughputAbove = throughputAbove
        self.startup = startup; self.starvation = starvation; self.states = states; self.objectTypes = objectTypes
    }

    /// The state names rules use (`"rebuffering"`), and the tokens (`"r"`), by state.
    public static let stateNames: [String: CMCDPlayerState] = Dictionary(
        uniqueKeysWithValues: CMCDPlayerState.allCases.map { ("\($0)", $0) } + CMCDPlayerState.allCases.map { ($0.rawValue, $0) })

    public func holds(_ cmcd: CMCDData?) -> Bool {
        if let present, (cmcd != nil) != present { return false }
        guard bufferBelow != nil || bufferAbove != nil || throughputBelow != nil || throughputAbove != nil
            || startup != nil || starvation != nil || states != nil || objectTypes != nil else { return true }
        guard let cmcd else { return false }
        if bufferBelow != nil || bufferAbove != nil {
            guard let milliseconds = cmcd.bufferLength else { return false }
            let buffer = Duration.milliseconds(milliseconds)
            if let bufferBelow, buffer >= bufferBelow { return false }
            if let bufferAbove, buffer <= bufferAbove { return false }
        }
        if throughputBelow != nil || throughputAbove != nil {
            guard let kbps = cmcd.measuredThroughput else { return false }
            let bytesPerSecond = kbps * 1000 / 8
            if let throughputBelow, bytesPerSecond >= throughputBelow { return false }
            if let throughputAbove, bytesPerSecond <= throughputAbove { return false }
        }
        if let startup, cmcd.su != startup { return false }
        if let starvation, cmcd.bs != starvation { return false }
        if let states {
            guard let state = cmcd.sta, states.contains(state) else { return false }
        }
        if let objectTypes {
            guard let type = cmcd.ot, objectTypes.contains(type) else { return false }
        }
        return true
    }
}
