"""Writes references.jsonl (see README.md): reference descriptions of major PDNC characters.

The texts below were written for fabula; this script only adds ids, book paths and PDNC aliases.
"""

import csv
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
PDNC = Path("../../../shared/data/pdnc")  # relative to this folder, as the evaluation resolves it

REFERENCES: list[tuple[str, str, str]] = [
    # (novel folder, the character's usual full name, description)
    (
        "ARoomWithAView",
        "Lucy Honeychurch",
        "Lucy Honeychurch is a young Englishwoman from Windy Corner in Surrey who plays Beethoven with a passion her conventional life lacks. Touring Florence with her cousin and chaperone Charlotte Bartlett, she is kissed by George Emerson among the violets. Back home she becomes engaged to the snobbish Cecil Vyse, but when George reappears she breaks the engagement, and with old Mr. Emerson's help admits that she loves George, whom she marries.",
    ),
    (
        "ARoomWithAView",
        "George Emerson",
        "George Emerson is the moody, serious son of old Mr. Emerson, a frank freethinker. In Florence he and his father give Lucy Honeychurch and her cousin their rooms with a view; George witnesses a stabbing with Lucy and later kisses her in a field of violets. He takes a villa near Lucy's home in Surrey, kisses her again, tells her Cecil Vyse does not love her as a person, and in the end marries her.",
    ),
    (
        "ARoomWithAView",
        "Cecil Vyse",
        "Cecil Vyse is Lucy Honeychurch's fiancé, a cultivated, self-satisfied young Londoner who despises country society and Lucy's family. He sees Lucy as a work of art rather than a woman with her own mind, and as a joke on a neighbour he brings the Emersons to live near Windy Corner. When Lucy breaks the engagement he accepts it with unexpected grace, admitting he has never known her.",
    ),
    (
        "ARoomWithAView",
        "Charlotte Bartlett",
        "Charlotte Bartlett is Lucy Honeychurch's poor, older cousin and her chaperone in Italy. Fussy, self-pitying and always apologising, she fears impropriety above all, hurries Lucy away from Florence after George Emerson kisses her, and makes Lucy keep it secret. She nevertheless confides the story to the novelist Eleanor Lavish, and at the end she seems to have quietly let Lucy meet Mr. Emerson.",
    ),
    (
        "AlicesAdventuresInWonderland",
        "Alice",
        "Alice is a curious, well-mannered little girl who follows a White Rabbit down a rabbit-hole into Wonderland. Eating and drinking strange things makes her grow and shrink, and she meets the Caterpillar, the Duchess, the Cheshire Cat, the Mad Hatter and the Queen of Hearts. She argues with their nonsense, grows bolder, and at the trial of the Knave of Hearts defies the court before waking beside her sister.",
    ),
    (
        "AlicesAdventuresInWonderland",
        "The Queen of Hearts",
        "The Queen of Hearts is the furious ruler of Wonderland, who settles every difficulty by ordering 'Off with his head!', though the King quietly pardons her victims. She plays a chaotic croquet game with live flamingos as mallets and hedgehogs as balls, invites Alice to play, and at the trial of the Knave of Hearts demands the sentence before the verdict.",
    ),
    (
        "AlicesAdventuresInWonderland",
        "The Hatter",
        "The Hatter is a rude, riddling character who keeps an endless tea party with the March Hare and the Dormouse. Since the Queen accused him of murdering the time while singing, it is always six o'clock, so they keep moving round the table. He asks Alice a riddle without an answer, and later appears as a nervous witness at the Knave's trial, biting his teacup.",
    ),
    (
        "DaisyMiller",
        "Daisy Miller",
        "Daisy Miller is a pretty, rich young American girl from Schenectady travelling in Europe with her mother and her little brother Randolph. Frank, flirtatious and indifferent to European etiquette, she goes alone with Winterbourne to the Castle of Chillon and in Rome walks publicly with the Italian Giovanelli. American society there shuns her. After a night visit to the Colosseum she catches Roman fever and dies.",
    ),
    (
        "DaisyMiller",
        "Winterbourne",
        "Winterbourne is an American of about twenty-seven who has lived long in Geneva and become stiff and cautious. At Vevey he is charmed by Daisy Miller and takes her to Chillon, but he cannot decide whether she is innocent or improper, and his aunt Mrs. Costello refuses to meet her. In Rome he watches her with Giovanelli, condemns her at the Colosseum, and after her death realises he misjudged her.",
    ),
    (
        "DaisyMiller",
        "Mrs. Costello",
        "Mrs. Costello is Winterbourne's aunt, a wealthy, snobbish widow who suffers from headaches and values her exclusive place in American society abroad. She considers the Millers common, refuses to be introduced to Daisy, and warns her nephew against the girl. In Rome she gossips about Daisy and Giovanelli and sees her own judgement confirmed.",
    ),
    (
        "DaisyMiller",
        "Randolph",
        "Randolph Miller is Daisy's nine-year-old brother, a pale, bold and spoiled boy who eats too much candy and has lost teeth to it. He boasts that everything in America is better, especially Schenectady, where his father has a big business, refuses to go to bed, and roams hotels at night. His chatter introduces Winterbourne to Daisy.",
    ),
    (
        "Emma",
        "Emma Woodhouse",
        "Emma Woodhouse is a handsome, clever and rich young woman who lives with her anxious father at Hartfield in Highbury. Proud of her matchmaking, she takes up Harriet Smith, talks her out of marrying Robert Martin and wrongly believes Mr. Elton loves Harriet. She flirts with Frank Churchill, insults Miss Bates at Box Hill and is rebuked by Mr. Knightley, then realises she loves him and marries him.",
    ),
    (
        "Emma",
        "Mr. Knightley",
        "Mr. George Knightley is the sensible owner of Donwell Abbey, about thirty-seven, an old friend of the Woodhouses whose brother John has married Emma's sister Isabella. He is the only person who tells Emma her faults, opposes her meddling with Harriet Smith, distrusts Frank Churchill, and rebukes her for insulting Miss Bates. He dances with Harriet when Mr. Elton snubs her, and marries Emma, moving into Hartfield.",
    ),
    (
        "Emma",
        "Harriet Smith",
        "Harriet Smith is a pretty, sweet-tempered and rather simple seventeen-year-old of unknown parents, a boarder at Mrs. Goddard's school. Emma takes her up as a friend, persuades her to refuse the farmer Robert Martin and to hope for Mr. Elton, who scorns her. She later fancies Mr. Knightley, which shocks Emma, but finally accepts Robert Martin, and her father proves to be a respectable tradesman.",
    ),
    (
        "Emma",
        "Frank Churchill",
        "Frank Churchill is Mr. Weston's son, raised by his rich aunt and uncle at Enscombe and long awaited in Highbury. Handsome, lively and careless, he flirts openly with Emma, rides to London supposedly for a haircut, and sends a piano to Jane Fairfax. He turns out to have been secretly engaged to Jane all along, using Emma as a screen, and marries Jane after his aunt's death.",
    ),
    (
        "Emma",
        "Miss Bates",
        "Miss Bates is a poor, good-natured middle-aged spinster who lives with her old mother, widow of a former vicar of Highbury. She talks endlessly, in rambling sentences, about everyone's kindness and about her niece Jane Fairfax's letters. At the Box Hill picnic Emma mocks her for saying dull things, and Mr. Knightley reproaches Emma for the cruelty.",
    ),
    (
        "NightAndDay",
        "Katharine Hilbery",
        "Katharine Hilbery is the beautiful, reserved daughter of a distinguished literary family in Chelsea and granddaughter of the poet Richard Alardyce, whose biography she helps her mother write. Privately she loves mathematics and the stars. She becomes engaged to William Rodney without loving him, lets him turn to her cousin Cassandra Otway, and comes to love Ralph Denham.",
    ),
    (
        "NightAndDay",
        "Ralph Denham",
        "Ralph Denham is a clerk at a firm of solicitors in Lincoln's Inn Fields who supports his large, middle-class family in Highgate and writes for Mr. Hilbery's review. Proud, ambitious and secretly romantic, he falls in love with Katharine Hilbery, proposes to Mary Datchet without loving her, and is refused. Later he and Katharine admit their love and agree to marry.",
    ),
    (
        "NightAndDay",
        "Mary Datchet",
        "Mary Datchet is a vicar's daughter from Lincolnshire who lives alone in London rooms and works for a women's suffrage society. Independent and warm, she falls in love with Ralph Denham and, seeing that he loves Katharine Hilbery, refuses his proposal. She gives herself to her political work, the lonely but firm choice of a life of her own.",
    ),
    (
        "NightAndDay",
        "William Rodney",
        "William Rodney is a fastidious young government clerk and amateur poet who writes verse drama and lectures on Elizabethan literature. Easily hurt and fussy about correctness, he becomes engaged to Katharine Hilbery, who does not love him. He falls in love with her cousin Cassandra Otway, and with Katharine's encouragement he breaks off the engagement and marries Cassandra.",
    ),
    (
        "NorthangerAbbey",
        "Catherine Morland",
        "Catherine Morland is a plain-living clergyman's daughter of seventeen, honest and naive, who loves Gothic novels. She goes to Bath with the Allens, is befriended by the false Isabella Thorpe and pestered by John Thorpe, and falls in love with Henry Tilney. Invited to Northanger Abbey, she imagines General Tilney murdered his wife, is ashamed, is sent home by the General, and marries Henry.",
    ),
    (
        "NorthangerAbbey",
        "Henry Tilney",
        "Henry Tilney is a witty young clergyman, the younger son of General Tilney, whom Catherine Morland meets at a ball in Bath. He teases her about journals and muslin, discusses novels, and gently corrects her fancies at Northanger Abbey. When his father turns Catherine out on learning she is not rich, Henry defies him, follows her to Fullerton and proposes.",
    ),
    (
        "NorthangerAbbey",
        "Isabella Thorpe",
        "Isabella Thorpe is a pretty, talkative and insincere young woman whom Catherine Morland befriends in Bath. Full of vows of friendship and talk of novels, she becomes engaged to Catherine's brother James, but when his family's income proves modest she flirts with the rich Captain Frederick Tilney. He abandons her, and her letter asking Catherine to reconcile her with James is seen through.",
    ),
    (
        "NorthangerAbbey",
        "John Thorpe",
        "John Thorpe is Isabella's brother, a loud, boastful and untruthful young man obsessed with his horses and gig. He courts Catherine Morland clumsily, lies to get her away from the Tilneys, and tells General Tilney she is rich, then, angry at her refusal, that her family is poor, which causes the General to send her away from Northanger.",
    ),
    (
        "PrideAndPrejudice",
        "Elizabeth Bennet",
        "Elizabeth Bennet is the second of five daughters of the Bennets of Longbourn, lively, witty and proud of her judgement. Slighted by Mr. Darcy at a ball and misled by Wickham, she dislikes him and refuses his proposal, as she earlier refused Mr. Collins. Darcy's letter and a visit to Pemberley change her mind, and after he saves her sister Lydia's reputation she marries him.",
    ),
    (
        "PrideAndPrejudice",
        "Mr. Darcy",
        "Mr. Darcy is a rich, reserved gentleman from Derbyshire, owner of Pemberley and close friend of Mr. Bingley. His pride offends Hertfordshire, and he persuades Bingley to leave Jane Bennet. He proposes to Elizabeth Bennet with insulting frankness and is refused, then explains himself in a letter about Wickham. Humbled, he secretly arranges Lydia's marriage to Wickham and marries Elizabeth.",
    ),
    (
        "PrideAndPrejudice",
        "Jane Bennet",
        "Jane Bennet is the eldest and most beautiful of the Bennet sisters, gentle, modest and inclined to think well of everyone. She falls in love with Mr. Bingley, but his sisters and Mr. Darcy separate them, and in London Caroline Bingley coldly drops her. Jane hides her disappointment; when Bingley returns to Netherfield he proposes and they marry.",
    ),
    (
        "PrideAndPrejudice",
        "Mrs. Bennet",
        "Mrs. Bennet is the foolish, nervous and talkative mother of the five Bennet daughters, whose one aim in life is to get them married. She complains of her nerves, pushes Jane to ride to Netherfield in the rain, is furious when Elizabeth refuses Mr. Collins, and rejoices at Lydia's hasty marriage without seeing its disgrace.",
    ),
    (
        "PrideAndPrejudice",
        "Mr. Collins",
        "Mr. Collins is a pompous, servile clergyman, Mr. Bennet's cousin and the heir to Longbourn under the entail. He constantly praises his patroness Lady Catherine de Bourgh. He comes to Longbourn to choose a wife, proposes to Elizabeth, cannot believe her refusal, and three days later becomes engaged to her friend Charlotte Lucas.",
    ),
    (
        "SenseAndSensibility",
        "Elinor Dashwood",
        "Elinor Dashwood is the eldest Dashwood daughter, sensible and self-controlled, who guides her mother and sisters after they move to Barton Cottage. She loves Edward Ferrars but learns from Lucy Steele that he has been secretly engaged to Lucy for years, and she hides her grief. She nurses Marianne through her illness, and when Lucy marries Edward's brother Robert, Edward proposes to Elinor.",
    ),
    (
        "SenseAndSensibility",
        "Marianne Dashwood",
        "Marianne Dashwood is Elinor's younger sister, romantic, impulsive and open with her feelings. She falls in love with Willoughby after he carries her home with a sprained ankle, and is devastated when he marries a rich heiress. Her uncontrolled grief brings on a dangerous fever at Cleveland. She recovers, learns self-command, and marries Colonel Brandon.",
    ),
    (
        "SenseAndSensibility",
        "Willoughby",
        "John Willoughby is a handsome, charming young man who rescues Marianne Dashwood after she falls on a hill and wins her heart with shared tastes. He leaves Devonshire suddenly and, in London, coldly cuts her and marries the wealthy Miss Grey. He had seduced and abandoned Colonel Brandon's ward Eliza, and later confesses to Elinor that he truly loved Marianne.",
    ),
    (
        "SenseAndSensibility",
        "Colonel Brandon",
        "Colonel Brandon is a grave, kind gentleman of about thirty-five, owner of Delaford and friend of Sir John Middleton. Marianne Dashwood first thinks him too old for love. He loves her quietly, reveals Willoughby's seduction of his ward Eliza, gives Edward Ferrars a living, helps during Marianne's illness, and finally marries her.",
    ),
    (
        "TheAwakening",
        "Edna Pontellier",
        "Edna Pontellier is the twenty-eight-year-old wife of Léonce Pontellier, a New Orleans businessman. Summering at Grand Isle, she learns to swim, falls in love with Robert Lebrun and awakens to desire and independence. Back in the city she neglects her social duties, paints, moves into a small house of her own and has an affair with Alcée Arobin. When Robert leaves her again, she swims out into the sea.",
    ),
    (
        "TheAwakening",
        "Robert Lebrun",
        "Robert Lebrun is the son of Madame Lebrun, who keeps the cottages at Grand Isle, and each summer he devotes himself to one of the guests. That summer he grows close to Edna Pontellier, teaches her to swim, and leaves suddenly for Mexico because he loves her. When he returns to New Orleans he admits his love, but he goes away again, leaving a note saying goodbye because he loves her.",
    ),
    (
        "TheAwakening",
        "Léonce Pontellier",
        "Léonce Pontellier is Edna's husband, a prosperous New Orleans broker of about forty who treats his wife as a valuable possession. Kind in his way, he gives her money and gifts but reproaches her for neglecting the children and her Tuesday receptions. Puzzled by her change, he consults Doctor Mandelet, and while he is away in New York he protects appearances by announcing that their house is being remodelled.",
    ),
    (
        "TheAwakening",
        "Mademoiselle Reisz",
        "Mademoiselle Reisz is a small, elderly, disagreeable pianist whom most people avoid but whose playing moves Edna Pontellier deeply. She receives Robert Lebrun's letters from Mexico and lets Edna read them. She tells Edna that an artist must have a courageous soul, and that a bird which would soar above tradition must have strong wings.",
    ),
    (
        "TheGambler",
        "Alexis Ivanovitch",
        "Alexis Ivanovitch is the narrator, a young Russian tutor in the household of a ruined General staying at a German spa town. Proud, touchy and passionately in love with the General's stepdaughter Polina, he gambles at roulette for her sake, wins two hundred thousand francs in one night, and loses her. He goes to Paris with Mlle. Blanche and ends up a compulsive gambler, drifting from town to town.",
    ),
    (
        "TheGambler",
        "Polina Alexandrovna",
        "Polina Alexandrovna is the General's proud, secretive stepdaughter, whom the narrator Alexis loves. She is entangled with the Frenchman De Griers, who has abandoned her, and she treats Alexis with scorn, sending him to gamble for her. When he brings her his winnings she throws the money in his face and goes to Mr. Astley, who later tells Alexis that she loved him.",
    ),
    (
        "TheGambler",
        "Antonida Vassilievna",
        "Antonida Vassilievna, the Grandmother, is a rich, imperious old Moscow lady of seventy-five whose death the General's family is waiting for so they can inherit. She arrives unexpectedly at the spa in her invalid chair, scolds everyone, becomes obsessed with roulette and loses a huge part of her fortune, then goes home to Moscow, leaving the General's hopes ruined.",
    ),
    (
        "TheGambler",
        "Mr. Astley",
        "Mr. Astley is a shy, reserved and honourable young Englishman, a member of a firm of sugar refiners, who is the narrator's friend. He silently loves Polina, helps her when she is ill, and takes care of her after she leaves Alexis. Meeting Alexis at the end, he tells him that Polina loved him, and that he is ruined by gambling.",
    ),
    (
        "TheManWhoWasThursday",
        "Gabriel Syme",
        "Gabriel Syme is a poet who believes in order and has joined a special philosophical police force against anarchists. After a debate with Lucian Gregory in Saffron Park, he tricks Gregory into taking him to an anarchist meeting, where Syme is elected to the Central Council as Thursday. Pursuing the council's plot, he discovers that the other members are detectives too, and finally confronts their president, Sunday.",
    ),
    (
        "TheManWhoWasThursday",
        "Mr. Lucian Gregory",
        "Lucian Gregory is a red-haired anarchic poet of Saffron Park who argues that the poet is a rebel against order. Stung by Gabriel Syme's doubts, he takes Syme to a secret anarchist meeting, expecting to be elected Thursday of the Central Council, but Syme outwits him and takes the place. He is the only real anarchist in the story, and at the end he reappears as the accuser of the others.",
    ),
    (
        "TheManWhoWasThursday",
        "Sunday",
        "Sunday is the huge, laughing president of the Central Anarchist Council, whose presence frightens all its members. He is also the unseen chief in a dark room who recruited the detectives. Unmasked, he leads them on a wild chase across London on an elephant and a balloon, and at the end declares himself the Sabbath, the peace of God.",
    ),
    (
        "TheMysteriousAffairAtStyles",
        "Hercule Poirot",
        "Hercule Poirot is a small, fastidious Belgian detective with an egg-shaped head and a proud moustache, once famous in the Belgian police and now a refugee living in Styles St. Mary with help from Mrs. Inglethorp. When she is poisoned he takes up the case, insists on order and method, and proves that her husband Alfred Inglethorp and Evelyn Howard killed her.",
    ),
    (
        "TheMysteriousAffairAtStyles",
        "Hastings",
        "Arthur Hastings, the narrator, is an officer invalided home from the war who stays at Styles Court with his old friend John Cavendish. He meets his friend Poirot again and helps with the investigation of Mrs. Inglethorp's death, but is honest, impulsive and often wrong, believing he could be a detective. He admires Mary Cavendish and proposes rashly to Cynthia Murdoch.",
    ),
    (
        "TheMysteriousAffairAtStyles",
        "John Cavendish",
        "John Cavendish is Mrs. Inglethorp's elder stepson, a pleasant, rather weak country gentleman who invites Hastings to Styles. He has money troubles and an unhappy marriage to Mary, and after his stepmother's death he is arrested and tried for poisoning her. Poirot's discoveries clear him, and he is reconciled with his wife.",
    ),
    (
        "TheMysteriousAffairAtStyles",
        "Evelyn Howard",
        "Evelyn Howard is Mrs. Inglethorp's companion, a blunt, energetic woman in her forties who distrusts Alfred Inglethorp and leaves Styles after quarrelling about him. Her hatred of him seems genuine, but she is in fact his cousin and lover. Poirot shows that she helped him poison Mrs. Inglethorp.",
    ),
    (
        "TheSignOfTheFour",
        "Sherlock Holmes",
        "Sherlock Holmes is a brilliant consulting detective who, bored between cases, injects cocaine in his Baker Street rooms. Mary Morstan brings him the mystery of her vanished father and the yearly pearls; he finds Bartholomew Sholto murdered at Pondicherry Lodge, tracks the killer with the dog Toby and the Baker Street Irregulars, and catches Jonathan Small after a chase down the Thames.",
    ),
    (
        "TheSignOfTheFour",
        "Dr. Watson",
        "Dr. Watson is Sherlock Holmes's friend and the narrator, an army surgeon who objects to Holmes's cocaine habit. He accompanies Holmes and Mary Morstan to Thaddeus Sholto and Pondicherry Lodge and helps in the chase. He falls in love with Mary and is glad when the Agra treasure is lost, since it no longer stands between them, and they become engaged.",
    ),
    (
        "TheSignOfTheFour",
        "Mary Morstan",
        "Mary Morstan is a young governess, working for Mrs. Cecil Forrester, whose father, Captain Morstan, disappeared ten years earlier after returning from India. Every year since, she has received a pearl from an unknown sender. She brings the case to Holmes, behaves with calm courage, loses her claim to the Agra treasure when it is thrown into the Thames, and becomes engaged to Watson.",
    ),
    (
        "TheSignOfTheFour",
        "Jonathan Small",
        "Jonathan Small is an English ex-soldier with a wooden leg who, during the Indian Mutiny, joined three Sikhs in taking the Agra treasure. Convicted and sent to the Andaman Islands, he was betrayed by Major Sholto. He escaped with the islander Tonga, came for the treasure, and after a chase on the Thames threw it in the river before telling Holmes his story.",
    ),
    (
        "TheSportOfTheGods",
        "Berry Hamilton",
        "Berry Hamilton is the loyal, respected Black butler of Maurice Oakley in a Southern town, living contentedly with his wife Fannie and children Joe and Kitty. Falsely accused of stealing money that Frank Oakley had lost, he is sentenced to ten years of hard labour. A New York reporter proves his innocence, and, released, he returns south with Fannie to their old cottage.",
    ),
    (
        "TheSportOfTheGods",
        "Joe Hamilton",
        "Joe Hamilton is Berry's son, a vain young barber. After his father's conviction the family moves to New York, where Joe is drawn into the Banner Club's nightlife, drinks, and falls for the chorus girl Hattie Sterling. When she throws him out he strangles her, and he is sent to prison.",
    ),
    (
        "TheSportOfTheGods",
        "Fannie Hamilton",
        "Fannie Hamilton is Berry's devoted wife. Driven from their home after his conviction, she takes Joe and Kitty to New York, where she loses control of her children. Believing that prison has ended her marriage, she marries Tom Gibson, a gambler who beats her. When Gibson dies she is reunited with Berry and goes back south with him.",
    ),
    (
        "TheSportOfTheGods",
        "Maurice Oakley",
        "Maurice Oakley is a proud Southern gentleman, Berry Hamilton's employer, who has Berry convicted of theft out of loyalty to his brother Frank. When Frank confesses in a letter that he lost the money gambling, Maurice hides the letter to protect the family name and slowly goes mad, clutching it. Once the truth comes out, he is left insane in his mansion.",
    ),
]


# the PDNC character list's main name where the reference uses a fuller or plainer one
PDNC_NAMES = {
    "Lucy Honeychurch": "Miss Honeychurch",
    "Cecil Vyse": "Mr. Vyse",
    "Charlotte Bartlett": "Miss Bartlett",
    "The Queen of Hearts": "The Queen",
    "Jonathan Small": "Wooden-Legged Man",
    "Mary Morstan": "Miss Morstan",
    "Sherlock Holmes": "Mr. Sherlock Holmes",
    "Hastings": "Mr. Hastings",
    "Antonida Vassilievna": "Antonida Vassilievna Tarassevitcha",
    "Elizabeth Bennet": "Elizabeth",
    "Jane Bennet": "Jane",
    "Elinor Dashwood": "Elinor",
    "Marianne Dashwood": "Marianne",
    "Willoughby": "Mr. Willoughby",
    "Emma Woodhouse": "Emma",
    "Frank Churchill": "Mr. Frank Churchill",
    "Léonce Pontellier": "Leonce Pontellier",
    "Sunday": "The Invisible Chief",
}


def aliases_of(novel: str, name: str) -> list[str]:
    name = PDNC_NAMES.get(name, name)
    with open(HERE / PDNC / novel / "character_info.csv", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            if row["Main Name"] == name:
                return sorted(
                    a.strip(" '\"") for a in row["Aliases"].strip("{}[]").split(",") if a.strip(" '\"")
                )
    return []


def main() -> None:
    lines = []
    for i, (novel, name, text) in enumerate(REFERENCES, start=1):
        aliases = [a for a in aliases_of(novel, name) if not a.startswith("_") and a.lower() != "narr"]
        words = len(text.split())
        assert 40 <= words <= 90, (name, words)
        item = {
            "id": f"{novel}-{i:02d}",
            "book": f"{PDNC / novel / 'novel_text.txt'}",
            "novel": novel,
            "character": name,
            "aliases": aliases,
            "kind": "description",
            "reference": text,
        }
        lines.append(json.dumps(item, ensure_ascii=False))
    (HERE / "references.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(lines)} references")


if __name__ == "__main__":
    main()
