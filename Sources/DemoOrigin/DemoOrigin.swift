// DemoOrigin module
