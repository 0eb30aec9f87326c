print("hlschaos")
