from agent.ui.main import main

main()
