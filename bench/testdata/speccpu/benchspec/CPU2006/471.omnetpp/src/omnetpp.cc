int omnetpp() { return 1; }
